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
  /** Whether the chat follows its newest message (false once the user scrolls up to read). */
  pinned: true,
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
      if (!SAFE_LINK.test(href)) return h("span");
      const link = h("a", { href, target: "_blank", rel: "noopener noreferrer", title: href });
      if (botLink(href)) {
        link.addEventListener("click", (event) => {
          event.preventDefault();
          openLink(href);
        });
      }
      return link;
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
    action = () => openLink(button.url);
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
      bubble.append(h("img", { class: message.photo.width > message.photo.height ? "photo wide" : "photo", src: message.photo.src, alt: "photo", width: message.photo.width, height: message.photo.height }));
    } else {
      bubble.append(h("div", { class: "hint", text: `[photo by URL, not fetched offline: ${message.photo.url || "?"}]` }));
    }
  }
  if (message.viaBot) bubble.append(h("div", { class: "via", text: `via @${message.viaBot.username}` }));
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
  showChatState();
}

// ---------------------------------------------------------------- the chat's first screen, scrolling, typing

/** Like Telegram: a new chat offers START and says what the bot does; the chat then follows its newest message. */
function showChatState() {
  const list = $("messages");
  const empty = !list.querySelector(".msg");
  $("start-bar").hidden = !empty;
  const hint = list.querySelector(".empty-chat");
  if (empty && !hint) {
    list.append(h("div", { class: "empty-chat" }, h("b", { text: "What can this bot do?" }), "Quote and buy TRON energy and bandwidth, automate refills and get alerts, on the sandbox marketplace (no real TRX). Press START."));
  } else if (!empty && hint) {
    hint.remove();
  }
  $("scroll-down").hidden = view.pinned !== false;
}

function distanceFromNewest() {
  const list = $("messages");
  return list.scrollHeight - list.scrollTop - list.clientHeight;
}

function scrollToNewest() {
  const list = $("messages");
  view.pinned = true;
  list.scrollTop = list.scrollHeight;
  $("scroll-down").hidden = true;
}

/**
 * A chat that shows its newest message keeps showing it while its box changes: at phone width the
 * side panel appears below the chat after the first screen and takes height from it, and photos
 * grow the list as they load; scrolled up to read, the chat stays put and offers the jump down.
 */
function watchScrolling() {
  const list = $("messages");
  list.addEventListener("scroll", () => {
    view.pinned = distanceFromNewest() < 80;
    $("scroll-down").hidden = view.pinned;
  });
  const follow = () => {
    if (view.pinned !== false) list.scrollTop = list.scrollHeight;
  };
  new ResizeObserver(follow).observe(list);
  list.addEventListener("load", follow, true);
  $("scroll-down").onclick = () => scrollToNewest();
  $("start-button").onclick = () => void sendText("/start");
}

let typingTimer = null;

/** "typing…" in the header, as Telegram shows a chat action: for 5 s, or until the bot's next message. */
function showTyping(action) {
  $("chat-typing").textContent = action === "upload_photo" ? "sending a photo…" : "typing…";
  $("chat-typing").hidden = false;
  $("chat-sub").hidden = true;
  clearTimeout(typingTimer);
  typingTimer = setTimeout(hideTyping, 5000);
}

function hideTyping() {
  clearTimeout(typingTimer);
  $("chat-typing").hidden = true;
  $("chat-sub").hidden = false;
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
  const userId = view.userId;
  const data = await api(`/play/api/chat?userId=${userId}`);
  // Another user was chosen while this chat loaded: that user's load draws the chat.
  if (userId !== view.userId) return;
  $("messages").replaceChildren();
  for (const message of data.messages) applyMessage(message);
  for (const rejection of data.rejections) applyRejection(rejection);
  view.syncedEventId = data.lastEventId;
  hideTyping();
  showChatState();
  scrollToNewest();
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

/**
 * A link into the bot, as Telegram opens it: t.me/<bot>?start=… sends "/start …" in this chat;
 * Telegram's share page (t.me/share/url?url=…) is shown as the link it would share. Null otherwise.
 */
function botLink(href) {
  let url;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if (url.hostname === "t.me" && url.pathname === "/share/url") return { share: url.searchParams.get("url") || "" };
  if ((url.hostname === "t.me" && url.searchParams.has("start")) || (url.protocol === "tg:" && url.hostname === "resolve")) return { open: href };
  return null;
}

async function openLink(href) {
  const link = botLink(href);
  if (!link) {
    if (SAFE_LINK.test(href)) window.open(href, "_blank", "noopener,noreferrer");
    return;
  }
  if (link.share !== undefined) {
    await copy(link.share, "the link to share (open it in another user's chat to see what they get)");
    return;
  }
  try {
    await api("/play/api/open-link", { userId: view.userId, url: link.open });
  } catch (error) {
    toast(error.message);
  }
}

// ---------------------------------------------------------------- inline mode

let inlineTimer = null;
let inlineAsked = 0;

/** Asks the bot as Telegram does while the user types "@bot …", and lists the results it answers. */
async function askInline() {
  const asked = ++inlineAsked;
  const box = $("inline-results");
  try {
    const { inlineQueryId, answer } = await api("/play/api/inline", { userId: view.userId, query: $("inline-query").value });
    if (asked !== inlineAsked) return;
    box.hidden = false;
    if (!answer) {
      box.replaceChildren(h("div", { class: "empty", text: "The bot did not answer within 10 s (Telegram would show nothing)." }));
      return;
    }
    const items = answer.results.map((result) =>
      h("button", { type: "button", title: "Send this into the chat", onclick: () => void chooseInline(inlineQueryId, result.id) }, h("b", { text: result.title }), result.description ? h("span", { class: "desc", text: result.description }) : null),
    );
    if (answer.button) {
      const start = () => api("/play/api/open-link", { userId: view.userId, startParameter: answer.button.startParameter }).then(closeInline, (error) => toast(error.message));
      items.unshift(h("button", { type: "button", onclick: () => void start() }, h("b", { text: answer.button.text })));
    }
    if (items.length === 0) items.push(h("div", { class: "empty", text: "No results." }));
    items.push(h("div", { class: "empty", text: `cache_time ${answer.cacheTime} s · ${answer.results.length} result(s)` }));
    box.replaceChildren(...items);
  } catch (error) {
    toast(error.message);
  }
}

async function chooseInline(inlineQueryId, resultId) {
  try {
    await api("/play/api/inline/choose", { userId: view.userId, inlineQueryId, resultId });
    closeInline();
  } catch (error) {
    toast(error.message);
  }
}

function closeInline() {
  $("inline-results").hidden = true;
  $("inline-query").value = "";
}

function wireInline() {
  $("inline-box").addEventListener("submit", (event) => {
    event.preventDefault();
    clearTimeout(inlineTimer);
    void askInline();
  });
  $("inline-query").addEventListener("input", () => {
    clearTimeout(inlineTimer);
    inlineTimer = setTimeout(() => void askInline(), 400);
  });
  $("inline-query").addEventListener("keydown", (event) => {
    if (event.key === "Escape") closeInline();
  });
}

// ---------------------------------------------------------------- command menu

async function openMenu(filter) {
  const user = currentUser();
  const { commands } = await api(`/play/api/commands?userId=${view.userId}&lang=${encodeURIComponent(user ? user.languageCode : "")}`);
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

/**
 * Changes of the settle mode begun on this page so far: a panel state asked for before the latest
 * one began is older than what the checkbox shows, so it leaves the checkbox alone (it would
 * otherwise undo a click while a refresh was on its way).
 */
let settleEdits = 0;

async function refreshPanel() {
  if (!view.config.sandbox) return;
  const edits = settleEdits;
  const state = await api("/play/api/sandbox");
  renderPanel(state, edits === settleEdits);
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

  $("produces-history").textContent = "→ 30 days of past orders (a few failed and refunded), three rules and their firings, with their ledger entries, paid by a deposit dated before them so the balance stays as it is; then /stats charts them";
  const rate = $("price-slider").value;
  const unitVolume = $("price-resource").value === "energy" ? 65000n : 5000n;
  const costSun = BigInt(rate) * unitVolume;
  const costFraction = (costSun % 1000000n).toString().padStart(6, "0").replace(/0+$/, "");
  const cost = `${costSun / 1000000n}${costFraction ? `.${costFraction}` : ""}`;
  $("produces-price").textContent = `→ ${rate} sun per unit for ${$("price-resource").value} ${$("price-duration").value} (${unitVolume.toLocaleString("en")} cost ${cost} TRX before commission); price watches are checked at once: one this price reaches alerts its chat, with Buy now`;
  $("produces-notify").textContent = "→ a new notification in /notifications, pushed to the chat";
  const chosen = state.orders.find((order) => order.id === $("webhook-order").value) || state.orders[0];
  $("produces-send-webhook").textContent = !chosen
    ? "→ no order yet: place one with /buy"
    : chosen.status === "Created"
      ? `→ order ${chosen.id.slice(0, 8)} is still Created: settle it first`
      : `→ the sandbox posts order.${chosen.status === "Filled" ? "filled" : "failed"} for order ${chosen.id.slice(0, 8)} to this server's receiver (one alert, however many times)`;
}

/** Shows the sandbox's state; `settleCurrent` false: the state was asked for before the settle mode last changed here, so that part is left as shown. */
function renderPanel(state, settleCurrent = true) {
  $("balance").textContent = `Balance: ${state.balance.trx} TRX · ${state.balance.usdtTrc20} USDT`;
  if (settleCurrent) {
    $("settle-mode").textContent = settlementText(state.settlement);
    $("settle-auto").checked = state.settlement.auto;
    if (state.settlement.auto && document.activeElement !== $("settle-seconds")) $("settle-seconds").value = String(state.settlement.seconds);
  }
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
  showPrice(state);
  $("webhook-state").textContent = state.webhookUrl ? `Registered: ${state.webhookUrl.replace(/[^/]{12}$/, "…")}` : "No webhook URL registered.";
  view.panelState = state;
  renderProduces(state);
}

/** The slider follows the rate in force for the chosen resource and duration (unless it is being moved). */
function showPrice(state) {
  const rate = (state.prices || []).find((price) => price.resource === $("price-resource").value && price.duration === $("price-duration").value);
  if (!rate) return;
  if (document.activeElement !== $("price-slider")) $("price-slider").value = String(rate.sunPerUnit);
  $("price-value").textContent = `${$("price-slider").value} sun/unit${rate.overridden ? " (set)" : " (price book)"}`;
}

function watchReport(watches) {
  if (!watches) return "price watches: another check is running";
  return `price watches: ${watches.targets} checked, ${watches.fired} alert(s)`;
}

async function panelAction(action, body) {
  const edits = settleEdits;
  try {
    const data = await api(`/play/api/sandbox/${action}`, body || {});
    renderPanel(data.state, edits === settleEdits);
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
    settleEdits += 1;
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
  $("panel-history").onclick = async () => {
    const result = await panelAction("fill-history", { days: 30 });
    if (result) toast(`Added ${result.orders} orders and ${result.firings} rule firings over 30 days (${result.spentTrx} TRX): send /stats`);
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
  const setPrice = async (sunPerUnit) => {
    const result = await panelAction("set-price", { resource: $("price-resource").value, duration: $("price-duration").value, sunPerUnit });
    if (result) toast(`${result.rate.resource} ${result.rate.duration}: ${result.rate.sunPerUnit} sun per unit · ${watchReport(result.watches)}`);
  };
  $("panel-price").onclick = () => setPrice(Number($("price-slider").value));
  $("price-slider").onchange = () => setPrice(Number($("price-slider").value));
  $("price-slider").oninput = () => {
    $("price-value").textContent = `${$("price-slider").value} sun/unit`;
    if (view.panelState) renderProduces(view.panelState);
  };
  $("panel-price-reset").onclick = () => setPrice(null);
  for (const id of ["price-resource", "price-duration"]) {
    $(id).addEventListener("input", () => {
      if (view.panelState) showPrice(view.panelState);
    });
  }
  for (const id of ["deposit-amount", "deposit-currency", "fail-mode", "rule-select", "webhook-order", "price-resource", "price-duration"]) {
    $(id).addEventListener("input", () => view.panelState && renderProduces(view.panelState));
  }
  void refreshPanel();
}

// ---------------------------------------------------------------- live events

function onEvent(event) {
  if (event.kind === "call") {
    addCall(event.call);
    if (event.call.method === "sendChatAction" && event.call.ok && event.chatId === view.userId && event.id > view.syncedEventId) showTyping(event.call.action);
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
  if (event.message.from === "bot" && event.kind === "message") hideTyping();
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
  // The user controls work from the first paint: a change made while the chat still loads is not lost.
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
  watchScrolling();
  connect();
  await loadChat();
  const { calls } = await api("/play/api/calls?getUpdates=1");
  for (const call of calls) addCall(call);
  if (view.config.sandbox) wirePanel();
  wireInline();

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
  // The composer and the inline box take input only now that they are wired: an Enter pressed
  // while the page still loads would otherwise submit the bare form and reload the page.
  for (const element of document.querySelectorAll("[data-until-ready]")) element.disabled = false;
  input.focus();
}

main().catch((error) => {
  document.body.prepend(h("div", { class: "toast", text: `The playground failed to start: ${error.message}` }));
});
