// The dashboard's data: every request carries Telegram's init data, nothing else identifies the user.

export class Unauthorized extends Error {}

/** The server's per-user window is full: the page says to wait (Retry-After, in seconds). */
export class TooManyRequests extends Error {
  constructor(seconds) {
    super("too many requests");
    this.seconds = seconds;
  }
}

export function createApi(initData) {
  async function call(method, path) {
    const response = await fetch(path, { method, headers: { authorization: `tma ${initData}` } });
    if (response.status === 401) throw new Unauthorized();
    if (response.status === 429) throw new TooManyRequests(Number(response.headers.get("retry-after")) || 60);
    // The server cannot serve now (its database is away): the page offers Try again.
    if (response.status === 503) throw new Error("HTTP 503");
    const body = await response.json().catch(() => null);
    if (!body) throw new Error(`HTTP ${response.status}`);
    return { status: response.status, body };
  }
  return {
    dashboard: () => call("GET", "/app/api/dashboard").then((answer) => answer.body),
    rules: () => call("GET", "/app/api/rules").then((answer) => answer.body),
    spending: (days) => call("GET", `/app/api/spending?days=${days}`).then((answer) => answer.body),
    ruleAction: (id, action) => call("POST", `/app/api/rules/${encodeURIComponent(id)}/${action}`),
    autoBuyAction: (id, action) => call("POST", `/app/api/autobuys/${encodeURIComponent(id)}/${action}`),
  };
}
