// The playground's web chat. Everything the bot wrote is untrusted: it is rendered from the
// message's plain text and entities (the fake's HTML parser output) with DOM APIs, never innerHTML.
"use strict";

const $ = (id) => document.getElementById(id);
const SAFE_LINK = /^(https?:|tg:)/i;
const COMMAND_IN_TEXT = /(^|\s)(\/[a-z0-9_]{1,32})(?=$|\s|[.,;:!?)])/gi;

const view = {
  config: null,
  userId: null,
  /** Events up to this id are already part of the shown chat snapshot. */
  syncedEventId: 0,
  unread: new Set(),
  seenCalls: new Set(),
  menuIndex: 0,
  refreshTimer: null,
  /** The sandbox panel's last state, so its "what this will do" lines follow the inputs. */
  panelState: null,
};

// ---------------------------------------------------------------- helpers

function h(tag, props, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") element.className = value;
    else if (key === "text") element.textContent = value;
    else if (key.startsWith("on")) element.addEventListener(key.slice(2), value);
    else element.setAttribute(key, String(value));
  }
  for (const child of children) if (child !== null && child !== undefined) element.append(child);
  return element;
}

async function api(path, body) {
  const init = body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

let toastTimer = null;
function toast(text) {
  const element = $("toast");
  element.textContent = text;
  element.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (element.hidden = true), 2600);
}

function alertBox(text) {
  $("alert-text").textContent = text;
  $("alert-dialog").showModal();
}

async function copy(text, what) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Plain http on a LAN address is not a secure context: fall back to a hidden textarea.
    const area = h("textarea", { class: "offscreen" });
    area.value = text;
    document.body.append(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
  toast(`Copied${what ? ` ${what}` : ""}: ${text.length > 48 ? `${text.slice(0, 47)}…` : text}`);
}

const currentUser = () => view.config.users.find((user) => user.id === view.userId);

// ---------------------------------------------------------------- rendering text with entities

/** Builds DOM from text + entities (UTF-16 offsets, as JavaScript strings use). */
function renderFormatted(text, entities, inCode) {
  const sorted = [...(entities || [])].sort((a, b) => a.offset - b.offset || b.length - a.length);
  return build(text, 0, text.length, sorted, inCode);
}

function build(text, start, end, entities, inCode) {
  const fragment = document.createDocumentFragment();
  let position = start;
  let index = 0;
  while (index < entities.length) {
    const entity = entities[index];
    const entityEnd = Math.min(entity.offset + entity.length, end);
    if (entity.offset < position) {
      index += 1;
      continue;
    }
    appendText(fragment, text.slice(position, entity.offset), inCode);
    const inner = [];
    index += 1;
    while (index < entities.length && entities[index].offset < entityEnd) {
      inner.push(entities[index]);
      index += 1;
    }
    const element = elementFor(entity, text.slice(entity.offset, entityEnd));
    const code = inCode || entity.type === "code" || entity.type === "pre";
    const target = element.firstChild && element.tagName === "PRE" ? element.firstChild : element;
    target.append(build(text, entity.offset, entityEnd, inner, code));
    fragment.append(element);
    position = entityEnd;
  }
  appendText(fragment, text.slice(position, end), inCode);
  return fragment;
}

function appendText(parent, text, inCode) {
  if (!text) return;
  if (inCode) {
    parent.append(text);
    return;
  }
  // Like Telegram, a /command in a bot message is tappable and sends itself.
  let last = 0;
  for (const match of text.matchAll(COMMAND_IN_TEXT)) {
    const commandStart = match.index + match[1].length;
    parent.append(text.slice(last, commandStart));
    const command = match[2];
    parent.append(h("span", { class: "cmd", text: command, title: `Send ${command}`, onclick: () => sendText(command) }));
    last = commandStart + command.length;
  }
  parent.append(text.slice(last));
}

function elementFor(entity, content) {
  switch (entity.type) {
    case "bold":
      return h("b");
    case "italic":
      return h("i");
    case "underline":
      return h("u");
    case "strikethrough":
      return h("s");
    case "spoiler": {
      const element = h("span", { class: "spoiler", title: "Spoiler: click to reveal" });
      element.addEventListener("click", () => element.classList.add("revealed"));
      return element;
    }
    case "code":
      return h("code", { title: "Click to copy", onclick: () => copy(content) });
    case "pre":
      return h("pre", {}, h("code", entity.language ? { class: `language-${entity.language}`, title: "Click to copy", onclick: () => copy(content) } : { title: "Click to copy", onclick: () => copy(content) }));
    case "text_link":
    case "url": {
      const href = entity.url || content;
      return SAFE_LINK.test(href) ? h("a", { href, target: "_blank", rel: "noopener noreferrer", title: href }) : h("span");
    }
    case "blockquote":
    case "expandable_blockquote":
      return h("blockquote");
    default:
      return h("span");
  }
}

// ---------------------------------------------------------------- chat

function timeOf(seconds) {
  return new Date(seconds * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

function keyboardFor(message) {
  const rows = message.replyMarkup && message.replyMarkup.inline_keyboard;
  if (!rows || rows.length === 0) return null;
  const keyboard = h("div", { class: "keyboard" });
  for (const row of rows) {
    const line = h("div", { class: "kb-row" });
    for (const button of row) line.append(buttonFor(message, button));
    keyboard.append(line);
  }
  return keyboard;
}

function buttonFor(message, button) {
  let kind = "";
  let action;
  if (typeof button.callback_data === "string") {
    action = () => press(message.messageId, button.callback_data);
  } else if (button.copy_text) {
    kind = "📋";
    action = () => copy(button.copy_text.text);
  } else if (typeof button.url === "string") {
    kind = "🔗";
    action = () => {
      if (SAFE_LINK.test(button.url)) window.open(button.url, "_blank", "noopener,noreferrer");
    };
  } else {
    kind = "?";
    action = () => toast("This kind of button does nothing in the playground.");
  }
  return h("button", { type: "button", class: "kb", "data-message-id": message.messageId, onclick: action }, button.text, kind ? h("span", { class: "kind", text: kind }) : null);
}

function messageElement(message) {
  const bubble = h("div", { class: "bubble" });
  if (message.photo) {
    if (message.photo.src) {
      bubble.append(h("img", { class: "photo", src: message.photo.src, alt: "photo", width: message.photo.width, height: message.photo.height }));
    } else {
      bubble.append(h("div", { class: "hint", text: `[photo by URL, not fetched offline: ${message.photo.url || "?"}]` }));
    }
  }
  const body = message.text !== undefined ? message.text : message.caption;
  if (body) bubble.append(h("div", { class: "body" }, renderFormatted(body, message.entities, message.from === "user")));
  bubble.append(h("div", { class: "meta" }, message.edited ? h("span", { class: "edited", text: "edited" }) : null, timeOf(message.date)));
  return h("div", { class: `msg ${message.from}`, "data-message-id": message.messageId, "data-order": message.messageId }, bubble, keyboardFor(message));
}

function rejectionElement(rejection) {
  const text = `⚠ ${rejection.method} was rejected by Telegram: ${rejection.errorCode ? `${rejection.errorCode} ` : ""}${rejection.description}`;
  return h(
    "div",
    { class: "msg bot rejected", "data-seq": rejection.seq, "data-order": rejection.afterMessageId + 0.5 },
    h("div", { class: "bubble" }, text, h("div", { class: "meta", text: new Date(rejection.at).toLocaleTimeString() })),
  );
}

/** Inserts in order (messages by id, rejections after the message they followed), replacing a previous copy. */
function place(element, existing) {
  const list = $("messages");
  const stick = list.scrollHeight - list.scrollTop - list.clientHeight < 80;
  if (existing) {
    existing.replaceWith(element);
  } else {
    const order = Number(element.dataset.order);
    const after = [...list.children].find((child) => Number(child.dataset.order) > order);
    list.insertBefore(element, after || null);
  }
  if (stick || !existing) list.scrollTop = list.scrollHeight;
}

function applyMessage(message) {
  const existing = $("messages").querySelector(`.msg[data-message-id="${message.messageId}"]`);
  if (message.deleted) {
    if (existing) existing.remove();
    return;
  }
  place(messageElement(message), existing);
}

function applyRejection(rejection) {
  const existing = $("messages").querySelector(`.msg[data-seq="${rejection.seq}"]`);
  place(rejectionElement(rejection), existing);
}

async function loadChat() {
  const data = await api(`/play/api/chat?userId=${view.userId}`);
  $("messages").replaceChildren();
  for (const message of data.messages) applyMessage(message);
  for (const rejection of data.rejections) applyRejection(rejection);
  view.syncedEventId = data.lastEventId;
  $("messages").scrollTop = $("messages").scrollHeight;
  const user = currentUser();
  $("chat-sub").textContent = user ? `you are ${user.firstName} · id ${user.id} · ${user.languageCode}` : "";
  $("export").href = `/play/api/transcript?userId=${view.userId}&download=1`;
}

// ---------------------------------------------------------------- actions

async function sendText(text) {
  try {
    await api("/play/api/send", { userId: view.userId, text });
  } catch (error) {
    toast(error.message);
  }
}

async function press(messageId, callbackData) {
  try {
    await api("/play/api/press", { userId: view.userId, messageId, callbackData });
  } catch (error) {
    toast(error.message);
  }
}

// ---------------------------------------------------------------- command menu

async function openMenu(filter) {
  const user = currentUser();
  const { commands } = await api(`/play/api/commands?lang=${encodeURIComponent(user ? user.languageCode : "")}`);
  // The user may have typed on (or sent) while the commands were loading.
  if (filter && $("composer-input").value !== filter) return;
  const wanted = (filter || "").toLowerCase();
  const shown = commands.filter((c) => `/${c.command}`.startsWith(wanted || "/"));
  const menu = $("command-menu");
  menu.replaceChildren(
    ...shown.map((c, i) =>
      h("button", { type: "button", class: i === 0 ? "active" : "", "data-command": c.command, onclick: () => pickCommand(c.command) }, `/${c.command}`, h("span", { class: "desc", text: c.description })),
    ),
  );
  view.menuIndex = 0;
  menu.hidden = shown.length === 0;
}

function closeMenu() {
  $("command-menu").hidden = true;
}

function pickCommand(command) {
  closeMenu();
  $("composer-input").value = "";
  void sendText(`/${command}`);
  $("composer-input").focus();
}

function moveMenu(step) {
  const items = [...$("command-menu").children];
  if (items.length === 0) return;
  view.menuIndex = (view.menuIndex + step + items.length) % items.length;
  items.forEach((item, i) => item.classList.toggle("active", i === view.menuIndex));
  items[view.menuIndex].scrollIntoView({ block: "nearest" });
}

// ---------------------------------------------------------------- call log

function addCall(call) {
  if (view.seenCalls.has(call.seq)) return;
  view.seenCalls.add(call.seq);
  const outcome = call.ok ? "ok" : `${call.errorCode || ""} ${call.description || "error"}${call.throttled ? " (429, retried)" : ""}`;
  const row = h(
    "li",
    { class: `${call.ok ? "" : "error"} ${call.method === "getUpdates" ? "poll" : ""}`, title: new Date(call.at).toLocaleTimeString() },
    `#${call.seq} `,
    h("span", { class: "m", text: call.method }),
    call.summary ? ` ${call.summary}` : "",
    ` → ${outcome}`,
  );
  const list = $("calls");
  list.prepend(row);
  while (list.children.length > 400) list.lastElementChild.remove();
}

// ---------------------------------------------------------------- sandbox panel

async function refreshPanel() {
  if (!view.config.sandbox) return;
  const state = await api("/play/api/sandbox");
  renderPanel(state);
}

function scheduleRefresh() {
  clearTimeout(view.refreshTimer);
  view.refreshTimer = setTimeout(() => void refreshPanel().catch(() => undefined), 500);
}

function settlementText(settlement) {
  return settlement.auto
    ? `Mode: orders settle by themselves ${settlement.seconds} s after they are placed.`
    : "Mode: orders wait for you: “Simulate: settle pending orders now” settles them.";
}

/** "990" + "100.5" as decimal strings, in integer millionths (never floats near money); null when either is not an amount. */
function addAmounts(a, b) {
  const micro = (text) => {
    const match = /^(\d{1,15})(?:\.(\d{1,6}))?$/.exec(String(text).trim());
    return match ? BigInt(match[1]) * 1000000n + BigInt((match[2] || "").padEnd(6, "0")) : null;
  };
  const [left, right] = [micro(a), micro(b)];
  if (left === null || right === null) return null;
  const total = left + right;
  const fraction = (total % 1000000n).toString().padStart(6, "0").replace(/0+$/, "");
  return `${total / 1000000n}${fraction ? `.${fraction}` : ""}`;
}

/** Under each Simulate button: what pressing it will do to the demo account and the chat, from the current state. */
function renderProduces(state) {
  const currency = $("deposit-currency").value;
  const before = currency === "TRX" ? state.balance.trx : state.balance.usdtTrc20;
  const after = addAmounts(before, $("deposit-amount").value);
  const unit = currency === "TRX" ? "TRX" : "USDT";
  $("produces-deposit").textContent = after === null
    ? "→ enter an amount such as 100 or 2.5"
    : `→ balance ${before} → ${after} ${unit}; a “Deposit credited” notification${currency === "TRX" ? "; rules paused for lack of balance with auto-resume on come back once it covers them" : ""}`;

  const created = state.orders.filter((order) => order.status === "Created").length;
  $("produces-settle").textContent = created
    ? `→ ${created} Created order(s) settle now (Filled, or Failed and refunded when armed below); the chat gets the alert`
    : "→ nothing to settle: no order is Created (place one with /buy)";

  $("produces-fail").textContent = $("fail-mode").value === "sync"
    ? "→ the next order placed is refused at once (502); nothing is charged"
    : "→ the next order placed is accepted, then settles as Failed; its TRX is refunded";

  const rule = state.rules.find((candidate) => candidate.id === $("rule-select").value);
  const name = rule ? `rule ${rule.id.slice(0, 8)}` : "";
  if (!rule) {
    $("produces-fire").textContent = "→ create a rule in the chat first (/refill, /renewal, /smart)";
    $("produces-pause").textContent = "";
  } else if (rule.status !== "active") {
    $("produces-fire").textContent = `→ ${name} is ${rule.status}: only an active rule fires or pauses`;
    $("produces-pause").textContent = "";
  } else {
    $("produces-fire").textContent = `→ ${name} delivers once now, paid from the balance (${state.balance.trx} TRX); if that does not cover it, it pauses instead`;
    $("produces-pause").textContent =
      `→ ${name}: paused (System), as if the balance could not cover its next delivery, although it holds ${state.balance.trx} TRX; ` +
      `the chat gets the “paused” alert with both figures; it comes back ${rule.autoResume ? "by itself after a deposit that covers it" : "with Resume after a top-up"}`;
  }

  $("produces-notify").textContent = "→ a new notification in /notifications, pushed to the chat";
  const chosen = state.orders.find((order) => order.id === $("webhook-order").value) || state.orders[0];
  $("produces-send-webhook").textContent = !chosen
    ? "→ no order yet: place one with /buy"
    : chosen.status === "Created"
      ? `→ order ${chosen.id.slice(0, 8)} is still Created: settle it first`
      : `→ the sandbox posts order.${chosen.status === "Filled" ? "filled" : "failed"} for order ${chosen.id.slice(0, 8)} to this server's receiver (one alert, however many times)`;
}

function renderPanel(state) {
  $("balance").textContent = `Balance: ${state.balance.trx} TRX · ${state.balance.usdtTrc20} USDT`;
  $("settle-mode").textContent = settlementText(state.settlement);
  $("settle-auto").checked = state.settlement.auto;
  if (state.settlement.auto && document.activeElement !== $("settle-seconds")) $("settle-seconds").value = String(state.settlement.seconds);
  $("orders").replaceChildren(
    ...state.orders.slice(0, 6).map((order) =>
      h("li", {}, h("code", { text: order.id.slice(0, 8) }), ` ${order.volume} ${order.resource} · ${order.totalTrx} TRX · `, h("span", { class: `status-${order.status}`, text: order.status })),
    ),
  );
  const orderSelect = $("webhook-order");
  const chosenOrder = orderSelect.value;
  orderSelect.replaceChildren(
    h("option", { value: "", text: "the newest order" }),
    ...state.orders.map((order) => h("option", { value: order.id, text: `${order.id.slice(0, 8)} · ${order.status}` })),
  );
  if (state.orders.some((order) => order.id === chosenOrder)) orderSelect.value = chosenOrder;
  const select = $("rule-select");
  const chosen = select.value;
  const live = state.rules.filter((rule) => rule.status !== "cancelled");
  select.replaceChildren(
    ...(live.length ? live.map((rule) => h("option", { value: rule.id, text: `${rule.id.slice(0, 8)} · ${rule.type} · ${rule.status}` })) : [h("option", { value: "", text: "no rules yet (/refill, /renewal, /smart)" })]),
  );
  if (live.some((rule) => rule.id === chosen)) select.value = chosen;
  $("webhook-state").textContent = state.webhookUrl ? `Registered: ${state.webhookUrl.replace(/[^/]{12}$/, "…")}` : "No webhook URL registered.";
  view.panelState = state;
  renderProduces(state);
}

async function panelAction(action, body) {
  try {
    const data = await api(`/play/api/sandbox/${action}`, body || {});
    renderPanel(data.state);
    return data.result;
  } catch (error) {
    toast(error.message);
    return null;
  }
}

function wirePanel() {
  $("panel").hidden = false;
  $("demo-key").textContent = view.config.demo.apiKey;
  $("copy-key").onclick = () => copy(view.config.demo.apiKey, "the demo API key");
  $("connect-key").onclick = () => sendText(`/connect ${view.config.demo.apiKey}`);
  $("panel-deposit").onclick = async () => {
    const result = await panelAction("deposit", { amount: $("deposit-amount").value, currency: $("deposit-currency").value });
    if (result) toast(`Credited ${result.entry.amount} ${result.entry.currency}`);
  };
  $("panel-settle").onclick = async () => {
    const result = await panelAction("settle");
    if (result) toast(result.settled.length ? `Settled ${result.settled.length} order(s): ${result.settled.map((o) => o.status).join(", ")}` : "No pending orders");
  };
  const setSettleMode = async () => {
    const seconds = Number($("settle-seconds").value);
    const result = await panelAction("settle-mode", { seconds: $("settle-auto").checked ? seconds : null });
    if (result) toast(settlementText(result.settlement));
    else void refreshPanel().catch(() => undefined);
  };
  $("settle-auto").onchange = setSettleMode;
  $("settle-seconds").onchange = () => {
    if ($("settle-auto").checked) void setSettleMode();
  };
  $("panel-fail").onclick = async () => {
    const result = await panelAction("fail-next", { mode: $("fail-mode").value });
    if (result) toast(`The next order will fail (${result.armed})`);
  };
  $("panel-fire").onclick = async () => {
    const result = await panelAction("fire-rule", { ruleId: $("rule-select").value });
    if (result) toast(result.fired ? "The rule fired" : `Not fired: ${result.reason}`);
  };
  $("panel-pause").onclick = async () => {
    const result = await panelAction("pause-rule", { ruleId: $("rule-select").value });
    if (result) toast(`Rule ${result.rule.status}`);
  };
  $("panel-notify").onclick = async () => {
    const result = await panelAction("notify", { title: $("notify-title").value, body: $("notify-body").value });
    if (result) toast("Notification added");
  };
  $("panel-webhook").onclick = async () => {
    const result = await panelAction("webhook", { userId: view.userId });
    if (result) toast("Webhook URL registered with the sandbox");
  };
  $("panel-send-webhook").onclick = async () => {
    const result = await panelAction("send-webhook", { userId: view.userId, orderId: $("webhook-order").value });
    if (result) toast(`The bot's receiver accepted ${result.event} for order ${result.orderId.slice(0, 8)}`);
  };
  $("panel-webhook-off").onclick = () => panelAction("webhook", { url: null });
  for (const id of ["deposit-amount", "deposit-currency", "fail-mode", "rule-select", "webhook-order"]) {
    $(id).addEventListener("input", () => view.panelState && renderProduces(view.panelState));
  }
  void refreshPanel();
}

// ---------------------------------------------------------------- live events

function onEvent(event) {
  if (event.kind === "call") {
    addCall(event.call);
    if (event.rejection && event.rejection.chatId === view.userId && event.id > view.syncedEventId) applyRejection(event.rejection);
    return;
  }
  if (event.kind === "callback_answer") {
    if (event.chatId !== view.userId) return;
    const answer = event.callbackAnswer;
    if (answer.text) (answer.showAlert ? alertBox : toast)(answer.text);
    if (answer.url) toast(`The bot answered with a link: ${answer.url}`);
    return;
  }
  if (event.chatId !== view.userId) {
    if (event.kind === "message" && event.message.from === "bot") markUnread(event.chatId);
    return;
  }
  if (event.id <= view.syncedEventId) return;
  applyMessage(event.message);
  if (event.message.from === "bot") scheduleRefresh();
}

function markUnread(userId) {
  view.unread.add(userId);
  renderUsers();
}

function connect() {
  const source = new EventSource(`/play/api/events?since=${view.config.lastEventId}`);
  source.onopen = () => $("conn").classList.add("live");
  source.onerror = () => $("conn").classList.remove("live");
  source.onmessage = (message) => {
    try {
      onEvent(JSON.parse(message.data));
    } catch (error) {
      console.error("bad event", error);
    }
  };
}

// ---------------------------------------------------------------- users and languages

function renderUsers() {
  $("user-select").replaceChildren(
    ...view.config.users.map((user) =>
      h("option", { value: user.id, selected: user.id === view.userId ? "selected" : null, text: `${user.firstName} (${user.id})${view.unread.has(user.id) ? " •" : ""}` }),
    ),
  );
  $("user-select").value = String(view.userId);
  const user = currentUser();
  if (user) $("lang-select").value = ["en", "ru", "zh"].includes(user.languageCode) ? user.languageCode : "en";
}

async function switchUser(userId) {
  view.userId = userId;
  view.unread.delete(userId);
  localStorage.setItem("playground.user", String(userId));
  renderUsers();
  await loadChat();
}

async function main() {
  view.config = await api("/play/api/config");
  const saved = Number(localStorage.getItem("playground.user"));
  view.userId = view.config.users.some((user) => user.id === saved) ? saved : view.config.users[0].id;
  renderUsers();
  connect();
  await loadChat();
  const { calls } = await api("/play/api/calls?getUpdates=1");
  for (const call of calls) addCall(call);
  if (view.config.sandbox) wirePanel();

  $("user-select").onchange = () => void switchUser(Number($("user-select").value));
  $("add-user").onclick = async () => {
    const { user } = await api("/play/api/users", { languageCode: $("lang-select").value });
    view.config.users.push(user);
    await switchUser(user.id);
  };
  $("lang-select").onchange = async () => {
    const { user } = await api("/play/api/users", { id: view.userId, languageCode: $("lang-select").value });
    view.config.users = view.config.users.map((u) => (u.id === user.id ? user : u));
    toast(`language_code is now ${user.languageCode} for ${user.firstName}`);
    await loadChat();
  };
  $("show-polls").onchange = () => $("calls").classList.toggle("with-polls", $("show-polls").checked);
  $("clear-log").onclick = (event) => {
    event.preventDefault();
    $("calls").replaceChildren();
  };
  $("alert-ok").onclick = () => $("alert-dialog").close();

  const input = $("composer-input");
  $("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value;
    if (!text.trim()) return;
    input.value = "";
    closeMenu();
    void sendText(text);
  });
  input.addEventListener("keydown", (event) => {
    const menuOpen = !$("command-menu").hidden;
    if (menuOpen && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
      event.preventDefault();
      moveMenu(event.key === "ArrowDown" ? 1 : -1);
    } else if (menuOpen && event.key === "Tab") {
      event.preventDefault();
      const item = $("command-menu").children[view.menuIndex];
      if (item) input.value = `/${item.dataset.command} `;
      closeMenu();
    } else if (menuOpen && event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      const item = $("command-menu").children[view.menuIndex];
      if (item) pickCommand(item.dataset.command);
      else $("composer").requestSubmit();
    } else if (menuOpen && event.key === "Escape") {
      closeMenu();
    } else if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      $("composer").requestSubmit();
    }
  });
  input.addEventListener("input", () => {
    const value = input.value;
    if (/^\/[a-z0-9_]*$/i.test(value)) void openMenu(value);
    else closeMenu();
  });
  $("menu-button").onclick = () => ($("command-menu").hidden ? void openMenu("") : closeMenu());
  input.focus();
}

main().catch((error) => {
  document.body.prepend(h("div", { class: "toast", text: `The playground failed to start: ${error.message}` }));
});
