import { LoadgenStepFFI } from "../mod.ts";
import { assert, assertEquals, startTarget } from "./helpers.ts";

Deno.test("a step session logs in and out with cookies and a redirect", async () => {
  const target = await startTarget();
  const steps = new LoadgenStepFFI();
  try {
    using session = steps.session({ base_url: target.url });
    const page = await session.execute({
      url: "/app/login",
      extract: [{ type: "dom", selector: 'form#login input[name="csrf"]', attribute: "value", as: "csrf" }],
    });
    assertEquals(page.status, 200);
    const csrf = page.extracted.csrf!;
    const inbox = await session.execute({
      url: "/app/login",
      method: "POST",
      form: { username: "ada", password: "secret", csrf },
      extract: [{ type: "regex", pattern: "logout\\?token=([a-f0-9]+)", as: "token" }],
    });
    assertEquals([inbox.status, inbox.redirects], [200, 1]);
    assert(inbox.body!.includes("Welcome, ada"));
    const logout = await session.execute({ url: `/app/logout?token=${inbox.extracted.token}`, follow_redirects: 0 });
    assertEquals(logout.status, 302);
    assert(logout.headers!.some(([n, v]) => n === "location" && v === "/app/login"));
    const after = await session.execute({ url: "/app/inbox" });
    assert(after.redirects === 1 && after.url!.endsWith("/app/login"), JSON.stringify(after));
  } finally {
    steps.close();
    await target.stop();
  }
});

Deno.test("a bad step is a LoadgenError with the library's message", async () => {
  const steps = new LoadgenStepFFI();
  try {
    using session = steps.session({});
    let error: unknown;
    try {
      await session.execute({ method: "GET" } as never);
    } catch (e) {
      error = e;
    }
    assert(error instanceof Error && error.message.includes("url"), String(error));
  } finally {
    steps.close();
  }
});
