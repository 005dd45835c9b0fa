// Cookies and a redirect against a local Deno server: /login sets a
// cookie and redirects to /home, which answers 200 only with the cookie.
import { LoadgenStepFFI } from "../mod.ts";

const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
  const url = new URL(request.url);
  if (url.pathname === "/login") {
    return new Response(null, {
      status: 302,
      headers: { location: "/home", "set-cookie": "session=abc123; Path=/; HttpOnly" },
    });
  }
  if (url.pathname === "/home") {
    const cookie = request.headers.get("cookie") ?? "";
    return cookie.includes("session=abc123")
      ? new Response("welcome home")
      : new Response("who are you?", { status: 401 });
  }
  return new Response("not found", { status: 404 });
});

const steps = new LoadgenStepFFI();
const session = steps.session({ base_url: `http://127.0.0.1:${server.addr.port}` });
const home = await session.execute({ url: "/login" });
console.log(`${home.url}: ${home.status} "${home.body}" after ${home.redirects} redirect`);
session.reset();
const forgotten = await session.execute({ url: "/home" });
console.log(`after reset: ${forgotten.status}`);
session.close();
steps.close();
await server.shutdown();
if (home.status !== 200 || home.redirects !== 1 || forgotten.status !== 401) Deno.exit(1);
