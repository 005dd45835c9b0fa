"""Watches loadgen's live dashboard in headless Chromium, driven by
Playwright, from its first second to the end of the run.

    python watch.py URL OUT.json [CHROMIUM] [SCREENSHOT.png]

Writes OUT.json: every state of the page's "last second" table as it
changed (its data-field cells, whether the run was over, and with it a
scenario's live steps table and the thresholds' states), the steps and
thresholds as the finished run left them, every URL
the page requested, every console message and page error, and the
finished report's page and JSON as the page's download links give them.
With SCREENSHOT.png, the top of the page is pictured once three seconds
are shown.
"""

import json
import sys
import time

from playwright.sync_api import sync_playwright

# The run lasts seconds; this bounds the wait for its end.
LIMIT_S = 60


def cells(page):
    return page.eval_on_selector_all(
        "table.now td[data-field]",
        "cells => cells.map(c => [c.dataset.field, c.textContent])",
    )


def steps(page):
    return page.eval_on_selector_all(
        "table.live-steps td[data-field]",
        "cells => cells.map(c => [c.dataset.field, c.textContent])",
    )


def thresholds(page):
    return page.eval_on_selector_all(
        "#thresholds li", "items => items.map(i => i.textContent)"
    )


def main() -> None:
    url, out = sys.argv[1], sys.argv[2]
    chromium = sys.argv[3] if len(sys.argv) > 3 else "/usr/bin/chromium"
    screenshot = sys.argv[4] if len(sys.argv) > 4 else None
    seen = {"updates": [], "requests": [], "console": [], "page_errors": []}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True)
        context = browser.new_context(viewport={"width": 1000, "height": 1250})
        page = context.new_page()
        page.on("request", lambda r: seen["requests"].append(r.url))
        page.on(
            "console", lambda m: seen["console"].append(f"{m.type}: {m.text}")
        )
        page.on("pageerror", lambda e: seen["page_errors"].append(str(e)))
        page.goto(url)
        last = None
        pictured = False
        deadline = time.monotonic() + LIMIT_S
        while time.monotonic() < deadline:
            over = page.locator("#end a").count() > 0
            now = cells(page)
            if now and now != last:
                update = {
                    "cells": now,
                    "steps": steps(page),
                    "thresholds": thresholds(page),
                }
                # The page reads in several steps: the end may have come
                # between them, with the finished report's verdicts, so a
                # reading is live only when the run was not over after it
                # either.
                update["over"] = over or page.locator("#end a").count() > 0
                seen["updates"].append(update)
                last = now
            live = [u for u in seen["updates"] if not u["over"]]
            if screenshot and not pictured and len(live) >= 3:
                page.screenshot(path=screenshot)
                pictured = True
            if over:
                break
            page.wait_for_timeout(50)
        seen["final"] = {"steps": steps(page), "thresholds": thresholds(page)}
        links = page.eval_on_selector_all("#end a", "links => links.map(a => a.href)")
        seen["downloads"] = {}
        for link in links:
            response = context.request.get(link)
            seen["downloads"][link.rsplit("/", 1)[-1]] = {
                "status": response.status,
                "body": response.text(),
            }
        context.close()
        browser.close()
    with open(out, "w") as f:
        json.dump(seen, f)


if __name__ == "__main__":
    main()
