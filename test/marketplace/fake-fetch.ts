/** A scripted fetch for client unit tests: answers from a queue and records every request. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: Headers;
  body: string | undefined;
}

export type Script = (request: RecordedRequest) => Response | Promise<Response> | Error;

export function createFakeFetch(...scripts: Script[]) {
  const requests: RecordedRequest[] = [];
  const fakeFetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const request: RecordedRequest = {
      method: init?.method ?? "GET",
      url: String(input),
      headers: new Headers(init?.headers),
      body: typeof init?.body === "string" ? init.body : undefined,
    };
    requests.push(request);
    const script = scripts[Math.min(requests.length - 1, scripts.length - 1)];
    if (!script) throw new Error("fake fetch has no script");
    const answer = await script(request);
    if (answer instanceof Error) throw answer;
    return answer;
  }) as typeof fetch;
  return { fetch: fakeFetch, requests };
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}
