import { sendText } from "./actions.js";
import { $, view } from "./state.js";
import { api, copy, grouped, h, toast } from "./util.js";

// The playground page: sandbox panel.

/**
 * Changes of the settle mode begun on this page so far: a panel state asked for before the latest
 * one began is older than what the checkbox shows, so it leaves the checkbox alone (it would
 * otherwise undo a click while a refresh was on its way).
 */
export let settleEdits = 0;

export async function refreshPanel() {
  if (!view.config.sandbox) return;
  const edits = settleEdits;
  const state = await api("/play/api/sandbox");
  renderPanel(state, edits === settleEdits);
}

/** The demo account's key (a restarted server has a new one). */
export function showDemo() {
  $("demo-key").textContent = view.config.demo.apiKey;
}

export function scheduleRefresh() {
  clearTimeout(view.refreshTimer);
  view.refreshTimer = setTimeout(() => void refreshPanel().catch(() => undefined), 500);
}

export function settlementText(settlement) {
  return settlement.auto
    ? `Mode: orders settle by themselves ${settlement.seconds} s after they are placed.`
    : "Mode: orders wait for you: “Simulate: settle pending orders now” settles them.";
}

/** "990" + "100.5" as decimal strings, in integer millionths (never floats near money); null when either is not an amount. */
export function addAmounts(a, b) {
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
export function renderProduces(state) {
  const currency = $("deposit-currency").value;
  const before = currency === "TRX" ? state.balance.trx : state.balance.usdtTrc20;
  const after = addAmounts(before, $("deposit-amount").value);
  const unit = currency === "TRX" ? "TRX" : "USDT";
  $("produces-deposit").textContent =
    after === null
      ? "→ enter an amount such as 100 or 2.5"
      : `→ balance ${grouped(before)} → ${grouped(after)} ${unit}; a “Deposit credited” notification${currency === "TRX" ? "; rules paused for lack of balance with auto-resume on come back once it covers them" : ""}`;

  const created = state.orders.filter((order) => order.status === "Created").length;
  $("produces-settle").textContent = created
    ? `→ ${created} Created order(s) settle now (Filled, or Failed and refunded when armed below); the chat gets the alert`
    : "→ nothing to settle: no order is Created (place one with /buy)";

  $("produces-fail").textContent =
    $("fail-mode").value === "sync"
      ? "→ the next order placed is refused at once (502); nothing is charged"
      : "→ the next order placed is accepted, then settles as Failed; its TRX is refunded";

  const filled = state.orders.filter((order) => order.status === "Filled").length;
  $("produces-rental-ends").textContent = filled
    ? "→ the current user's newest filled order's rental is moved on the bot's clock to end in 10 minutes (a quarter of a 15m one): the “ends” alert with Renew comes now"
    : "→ nothing yet: buy with /buy and settle the order first";

  const rule = state.rules.find((candidate) => candidate.id === $("rule-select").value);
  const name = rule ? `rule ${rule.id.slice(0, 8)}` : "";
  if (!rule) {
    $("produces-fire").textContent = "→ create a rule in the chat first (/refill, /renewal, /smart)";
    $("produces-pause").textContent = "";
  } else if (rule.status !== "active") {
    $("produces-fire").textContent = `→ ${name} is ${rule.status}: only an active rule fires or pauses`;
    $("produces-pause").textContent = "";
  } else {
    $("produces-fire").textContent =
      `→ ${name} delivers once now, paid from the balance (${grouped(state.balance.trx)} TRX); if that does not cover it, it pauses instead; ` +
      "the bot looks at the balance at once (the “Low balance” alert when it no longer covers the next delivery) and tells the delivery when /settings asks for it";
    $("produces-pause").textContent =
      `→ ${name}: paused (System), as if the balance could not cover its next delivery, although it holds ${grouped(state.balance.trx)} TRX; ` +
      `the chat gets the “paused” alert with both figures; it comes back ${rule.autoResume ? "by itself after a deposit that covers it" : "with Resume after a top-up"}`;
  }

  $("produces-history").textContent =
    "→ 30 days of past orders (a few failed and refunded), three rules and their firings, with their ledger entries, paid by a deposit dated before them so the balance stays as it is; then /stats charts them";
  const rate = $("price-slider").value;
  const unitVolume = $("price-resource").value === "energy" ? 65000n : 5000n;
  const costSun = BigInt(rate) * unitVolume;
  const costFraction = (costSun % 1000000n).toString().padStart(6, "0").replace(/0+$/, "");
  const cost = `${costSun / 1000000n}${costFraction ? `.${costFraction}` : ""}`;
  $("produces-price").textContent =
    `→ ${rate} sun per unit for ${$("price-resource").value} ${$("price-duration").value} (${grouped(unitVolume)} cost ${grouped(cost)} TRX before commission); price watches and auto-buys are checked at once: a watch this price reaches alerts its chat, with Buy now; an auto-buy whose cap the user's total is now at or under buys, and says "Auto-bought"`;
  $("produces-notify").textContent = "→ a new notification in /notifications, pushed to the chat";
  const chosen = state.orders.find((order) => order.id === $("webhook-order").value) || state.orders[0];
  $("produces-send-webhook").textContent = !chosen
    ? "→ no order yet: place one with /buy"
    : chosen.status === "Created"
      ? `→ order ${chosen.id.slice(0, 8)} is still Created: settle it first`
      : `→ the sandbox posts order.${chosen.status === "Filled" ? "filled" : "failed"} for order ${chosen.id.slice(0, 8)} to this server's receiver (one alert, however many times)`;
}

/** Shows the sandbox's state; `settleCurrent` false: the state was asked for before the settle mode last changed here, so that part is left as shown. */
export function renderPanel(state, settleCurrent = true) {
  $("balance").textContent = `Balance: ${grouped(state.balance.trx)} TRX · ${grouped(state.balance.usdtTrc20)} USDT`;
  if (settleCurrent) {
    $("settle-mode").textContent = settlementText(state.settlement);
    $("settle-auto").checked = state.settlement.auto;
    if (state.settlement.auto && document.activeElement !== $("settle-seconds"))
      $("settle-seconds").value = String(state.settlement.seconds);
  }
  $("orders").replaceChildren(
    ...state.orders
      .slice(0, 6)
      .map((order) =>
        h(
          "li",
          {},
          h("code", { text: order.id.slice(0, 8) }),
          ` ${grouped(order.volume)} ${order.resource} · ${grouped(order.totalTrx)} TRX · `,
          h("span", { class: `status-${order.status}`, text: order.status }),
        ),
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
    ...(live.length
      ? live.map((rule) =>
          h("option", { value: rule.id, text: `${rule.id.slice(0, 8)} · ${rule.type} · ${rule.status}` }),
        )
      : [h("option", { value: "", text: "no rules yet (/refill, /renewal, /smart)" })]),
  );
  if (live.some((rule) => rule.id === chosen)) select.value = chosen;
  showPrice(state);
  $("webhook-state").textContent = state.webhookUrl
    ? `Registered: ${state.webhookUrl.replace(/[^/]{12}$/, "…")}`
    : "No webhook URL registered.";
  view.panelState = state;
  renderProduces(state);
}

/**
 * The slider shows the rate in force for the chosen resource and duration, or the rate it was moved
 * to and not yet applied: moving it changes nothing until its button applies it.
 */
export function showPrice(state) {
  const rate = (state.prices || []).find(
    (price) => price.resource === $("price-resource").value && price.duration === $("price-duration").value,
  );
  if (!rate) return;
  if (view.priceDraft === null) {
    $("price-slider").value = String(rate.sunPerUnit);
    $("price-value").textContent = `${rate.sunPerUnit} sun/unit${rate.overridden ? " (set)" : " (price book)"}`;
  } else {
    $("price-slider").value = String(view.priceDraft);
    $("price-value").textContent = `${view.priceDraft} sun/unit (not applied yet; now ${rate.sunPerUnit})`;
  }
  $("panel-price").textContent = `Simulate: set the price to ${$("price-slider").value} sun/unit`;
}

export function watchReport(watches) {
  if (!watches) return "price watches: another check is running";
  const watched = `price watches: ${watches.targets} checked, ${watches.fired} alert(s)`;
  return watches.autoBuyRents > 0
    ? `${watched} · auto-buys: ${watches.autoBuyRents} rent(s) checked, ${watches.autoBought} order(s)`
    : watched;
}

export async function panelAction(action, body) {
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

export function wirePanel() {
  $("panel").hidden = false;
  showDemo();
  $("copy-key").onclick = () => copy(view.config.demo.apiKey, "the demo API key");
  $("connect-key").onclick = () => sendText(`/connect ${view.config.demo.apiKey}`);
  $("panel-deposit").onclick = async () => {
    const result = await panelAction("deposit", {
      amount: $("deposit-amount").value,
      currency: $("deposit-currency").value,
    });
    if (result) toast(`Credited ${result.entry.amount} ${result.entry.currency}`);
  };
  $("panel-settle").onclick = async () => {
    const result = await panelAction("settle");
    if (result)
      toast(
        result.settled.length
          ? `Settled ${result.settled.length} order(s): ${result.settled.map((o) => o.status).join(", ")}`
          : "No pending orders",
      );
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
  $("panel-rental-ends").onclick = async () => {
    const result = await panelAction("rental-ends", { userId: view.userId });
    if (result)
      toast(`The rental of order ${result.orderId.slice(0, 8)} now ends at ${result.endsAt.slice(11, 16)} UTC`);
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
    if (!result) return;
    const when = (iso) => `${String(iso).slice(0, 16).replace("T", " ")} UTC`;
    // The history's window is 30 × 24 hours back from now; /stats counts whole days in the user's time zone, and says which.
    toast(
      `Added ${result.orders} orders and ${result.firings} rule firings from ${when(result.from)} to ${when(result.to)} (${grouped(result.spentTrx)} TRX): send /stats`,
    );
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
  wirePriceControls();
  for (const id of [
    "deposit-amount",
    "deposit-currency",
    "fail-mode",
    "rule-select",
    "webhook-order",
    "price-resource",
    "price-duration",
  ]) {
    $(id).addEventListener("input", () => view.panelState && renderProduces(view.panelState));
  }
  void refreshPanel();
}

/** The price slider and its buttons: the slider picks a rate, its button applies it (see showPrice). */
function wirePriceControls() {
  const setPrice = async (sunPerUnit) => {
    const result = await panelAction("set-price", {
      resource: $("price-resource").value,
      duration: $("price-duration").value,
      sunPerUnit,
    });
    if (!result) return;
    view.priceDraft = null;
    if (view.panelState) showPrice(view.panelState);
    toast(
      `${result.rate.resource} ${result.rate.duration}: ${result.rate.sunPerUnit} sun per unit · ${watchReport(result.watches)}`,
    );
  };
  $("panel-price").onclick = () => setPrice(Number($("price-slider").value));
  $("price-slider").oninput = () => {
    view.priceDraft = Number($("price-slider").value);
    if (view.panelState) {
      showPrice(view.panelState);
      renderProduces(view.panelState);
    }
  };
  $("panel-price-reset").onclick = () => setPrice(null);
  for (const id of ["price-resource", "price-duration"]) {
    $(id).addEventListener("input", () => {
      view.priceDraft = null;
      if (view.panelState) showPrice(view.panelState);
    });
  }
}
