// Correlation: a value taken from one response is sent in the next
// request. The login page's CSRF token goes into the login form, the
// inbox's logout token into the logout URL.
import { LoadgenStepFFI } from "../mod.ts";

const target = Deno.env.get("LOADGEN_TARGET") ?? "http://127.0.0.1:8080";
const steps = new LoadgenStepFFI();
using session = steps.session({ base_url: target });

const page = await session.execute({ url: "/app/login" });
const csrf = page.body!.match(/name="csrf" value="([a-f0-9]+)"/)?.[1];
if (!csrf) throw new Error("no CSRF token on the login page");

const inbox = await session.execute({
  url: "/app/login",
  method: "POST",
  form: { username: "ada", password: "secret", csrf },
});
const token = inbox.body!.match(/logout\?token=([a-f0-9]+)/)?.[1];
if (inbox.status !== 200 || !token) throw new Error(`login failed: ${inbox.status}`);

const logout = await session.execute({ url: `/app/logout?token=${token}`, follow_redirects: 0 });
console.log(`login ${inbox.status} (after ${inbox.redirects} redirect), logout ${logout.status}`);
session.close();
steps.close();
if (logout.status !== 302) Deno.exit(1);
