import { $, view } from "./state.js";
import { h } from "./util.js";

// The playground page: call log.

export function addCall(call) {
  if (view.seenCalls.has(call.seq)) return;
  view.seenCalls.add(call.seq);
  const outcome = call.ok
    ? "ok"
    : `${call.errorCode || ""} ${call.description || "error"}${call.throttled ? " (429, retried)" : ""}`;
  const row = h(
    "li",
    {
      class: `${call.ok ? "" : "error"} ${call.method === "getUpdates" ? "poll" : ""}`,
      title: new Date(call.at).toLocaleTimeString(),
    },
    `#${call.seq} `,
    h("span", { class: "m", text: call.method }),
    call.summary ? ` ${call.summary}` : "",
    ` → ${outcome}`,
  );
  const list = $("calls");
  list.prepend(row);
  while (list.children.length > 400) list.lastElementChild.remove();
}
