"""Records a HAR of a person logging in and out of the built-in target's
app with headless Chromium, driven by Playwright.

    python record_login.py BASE_URL OUT.har [CHROMIUM]

BASE_URL is the target's, e.g. http://127.0.0.1:8080. The browser is the
system's Chromium (Playwright downloads none).
"""

import sys

from playwright.sync_api import sync_playwright


def main() -> None:
    base, out = sys.argv[1], sys.argv[2]
    chromium = sys.argv[3] if len(sys.argv) > 3 else "/usr/bin/chromium"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True)
        context = browser.new_context(record_har_path=out)
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.goto(f"{base}/app/login")
        page.fill("#username", "alice")
        page.fill("#password", "secret")
        page.click("form#login button[type=submit]")
        page.wait_for_selector("#welcome")
        page.wait_for_timeout(300)
        page.click("#logout")
        page.wait_for_url(f"{base}/app/login")
        page.wait_for_selector("form#login")
        # Closing the context writes the HAR.
        context.close()
        browser.close()


if __name__ == "__main__":
    main()
