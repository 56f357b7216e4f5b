import { h } from "preact";
import { useEffect, useState } from "preact/hooks";
import htm from "htm";
import { TooManyRequests, Unauthorized } from "./api.js";
import { haptic, showBackButton } from "./telegram.js";

const html = htm.bind(h);

/** Where the device keeps the window last chosen (only that: a number, nothing about the account). */
const DAYS_KEY = "dashboard.spending-days";

/** The window chosen last on this device, 7 by default. */
function rememberedDays() {
  try {
    return localStorage.getItem(DAYS_KEY) === "30" ? 30 : 7;
  } catch {
    return 7;
  }
}

function rememberDays(days) {
  try {
    localStorage.setItem(DAYS_KEY, String(days));
  } catch {
    // Storage refused (a private mode): the choice lasts as long as the page.
  }
}

/** Spending per day as bars, 7 or 30 days (the choice remembered on the device), with /stats' figures under them. */
export function Spending({ api, t }) {
  const [days, setDays] = useState(rememberedDays);
  const [view, setView] = useState(null);
  useEffect(() => {
    let live = true;
    setView(null);
    api.spending(days).then(
      (answer) => live && setView(answer),
      (error) => live && setView({ error: error instanceof TooManyRequests ? t["slow-down"] : t.failed }),
    );
    return () => {
      live = false;
    };
  }, [days]);
  const choose = (value) => {
    haptic();
    rememberDays(value);
    setDays(value);
  };
  const max = view && view.perDay ? Math.max(...view.perDay.map((day) => Number(day.trx)), 0) : 0;
  return html`<section class="card" id="spending">
    <div class="row">
      <h2>${t.spending}</h2>
      <div class="switch">
        ${[7, 30].map((value) => html`<button class=${value === days ? "on" : ""} id=${`days-${value}`} onClick=${() => choose(value)}>${t[`days-${value}`]}</button>`)}
      </div>
    </div>
    ${
      !view
        ? html`<p class="hint">${t.loading}</p>`
        : view.error
          ? html`<p class="error">${view.error}</p>`
          : html`<p class="hint">${view.range}</p>
              <${Bars} perDay=${view.perDay} max=${max} />
              <ul class="figures">
                ${view.lines.map((line) => html`<li>${line}</li>`)}
              </ul>`
    }
  </section>`;
}

/** The tallest bar, in px: the rest of the chart's height is for the figures over the bars. */
const BAR_PX = 64;

/**
 * A bar per day, each with the TRX spent over it (as the server words it: "" for nothing) and,
 * for 7 days, the day under it; for 30 the figures stand upright to fit. A screen reader reads
 * each day and its amount.
 */
function Bars({ perDay, max }) {
  const many = perDay.length > 7;
  return html`<ul class=${`bars${many ? " many" : ""}`}>
    ${perDay.map((day) => {
      const height = max > 0 ? Math.max(2, Math.round((Number(day.trx) / max) * BAR_PX)) : 2;
      return html`<li class="day" title=${`${day.label}: ${day.trx} TRX`} aria-label=${`${day.label}: ${day.trx} TRX`}>
        <span class="value" aria-hidden="true">${day.value}</span>
        <span class="bar" aria-hidden="true" style=${`height:${height}px`}></span>
        ${!many && html`<span class="label" aria-hidden="true">${day.label}</span>`}
      </li>`;
    })}
  </ul>`;
}

function RuleItem({ rule, api, t, onRule, onUnauthorized, open, setOpen }) {
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState("");
  async function act(action) {
    haptic("medium");
    setBusy(true);
    try {
      const answer = await api.ruleAction(rule.id, action);
      setNote(answer.body.message || "");
      if (answer.body.rule) onRule(answer.body.rule);
    } catch (error) {
      if (error instanceof Unauthorized) onUnauthorized();
      else setNote(error instanceof TooManyRequests ? t["slow-down"] : t.failed);
    } finally {
      setBusy(false);
    }
  }
  const paused = rule.pausedBy ? ` · ${t[`paused-by-${rule.pausedBy}`]}` : "";
  return html`<li class=${`rule ${rule.status}`} data-rule=${rule.id}>
    <button class="rule-head" onClick=${() => setOpen(open ? null : rule.id)}>
      <span class="rule-kind">${rule.kind} <code>${rule.short}</code></span>
      <span class=${`state ${rule.status}`}>${rule.statusText}${paused}</span>
    </button>
    <div class="hint">
      ${[rule.volume, rule.duration].filter(Boolean).join(" · ")} →
      <code>${rule.target.slice(0, 6)}…${rule.target.slice(-4)}</code>
    </div>
    ${open && html`<div class="hint">${t.spent}: ${rule.spent}</div>`}
    <div class="actions">
      ${rule.canPause && html`<button class="button" disabled=${busy} onClick=${() => act("pause")}>${t.pause}</button>`}
      ${rule.canResume && html`<button class="button" disabled=${busy} onClick=${() => act("resume")}>${t.resume}</button>`}
    </div>
    ${note && html`<p class="note">${note}</p>`}
  </li>`;
}

/** The rules with their state; Pause or Resume as the chat's card offers them. Back closes an open rule. */
export function Rules({ rules, api, t, onRule, onUnauthorized }) {
  const [open, setOpen] = useState(null);
  useEffect(() => {
    showBackButton(open !== null);
    const back = () => setOpen(null);
    window.addEventListener("dashboard-back", back);
    return () => window.removeEventListener("dashboard-back", back);
  }, [open]);
  const choose = (id) => {
    haptic();
    setOpen(id);
  };
  return html`<section class="card" id="rules">
    <h2>${t.rules}</h2>
    ${
      rules.error
        ? html`<p class="error">${rules.error}</p>`
        : rules.items.length === 0
          ? html`<p class="hint">${t["rules-empty"]}</p>`
          : html`<ul class="list">
              ${rules.items.map((rule) => html`<${RuleItem} key=${rule.id} rule=${rule} api=${api} t=${t} onRule=${onRule} onUnauthorized=${onUnauthorized} open=${open === rule.id} setOpen=${choose} />`)}
            </ul>`
    }
  </section>`;
}

function AutoBuyItem({ autoBuy, api, t, onAutoBuy, onUnauthorized }) {
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState("");
  async function act(action) {
    haptic("medium");
    setBusy(true);
    try {
      const answer = await api.autoBuyAction(autoBuy.id, action);
      setNote(answer.body.message || "");
      if (answer.body.autoBuy) onAutoBuy(answer.body.autoBuy);
    } catch (error) {
      if (error instanceof Unauthorized) onUnauthorized();
      else setNote(error instanceof TooManyRequests ? t["slow-down"] : t.failed);
    } finally {
      setBusy(false);
    }
  }
  return html`<li class=${`rule ${autoBuy.status}`} data-autobuy=${autoBuy.id}>
    <div class="row">
      <span class="rule-kind">${autoBuy.rent} <code>${autoBuy.short}</code></span>
      <span class=${`state ${autoBuy.status}`}>${autoBuy.statusText}</span>
    </div>
    <div class="hint">
      ≤ ${autoBuy.cap} · ${autoBuy.leftToday} / ${autoBuy.budget} →
      <code>${autoBuy.target.slice(0, 6)}…${autoBuy.target.slice(-4)}</code> · ${autoBuy.ends}
    </div>
    <div class="actions">
      ${autoBuy.canPause && html`<button class="button" disabled=${busy} onClick=${() => act("pause")}>${t.pause}</button>`}
      ${autoBuy.canResume && html`<button class="button" disabled=${busy} onClick=${() => act("resume")}>${t.resume}</button>`}
    </div>
    ${note && html`<p class="note">${note}</p>`}
  </li>`;
}

/** The auto-buys with their state; Pause or Resume as /autobuys offers them. Never a way to make one. */
export function AutoBuys({ autoBuys, api, t, onAutoBuy, onUnauthorized }) {
  return html`<section class="card" id="autobuys">
    <h2>${t.autobuys}</h2>
    ${
      autoBuys.items.length === 0
        ? html`<p class="hint">${t["autobuys-empty"]}</p>`
        : html`<ul class="list">
            ${autoBuys.items.map((autoBuy) => html`<${AutoBuyItem} key=${autoBuy.id} autoBuy=${autoBuy} api=${api} t=${t} onAutoBuy=${onAutoBuy} onUnauthorized=${onUnauthorized} />`)}
          </ul>`
    }
  </section>`;
}

/** The newest orders with their state; Buy again opens the chat's confirmation card. */
export function Orders({ orders, t, open }) {
  return html`<section class="card" id="orders">
    <h2>${t.orders}</h2>
    ${
      orders.error
        ? html`<p class="error">${orders.error}</p>`
        : orders.items.length === 0
          ? html`<p class="hint">${t["orders-empty"]}</p>`
          : html`<ul class="list">
              ${orders.items.map(
                (order) =>
                  html`<li class="order" data-order=${order.id}>
                    <div class="row">
                      <span>${order.what}</span><span class=${`state ${order.outcome}`}>${order.status}</span>
                    </div>
                    <div class="row hint">
                      <span><code>${order.short}</code> · ${order.total}</span>
                      ${order.buyAgain && html`<button class="link" onClick=${() => open(order.buyAgain)}>${t["buy-again"]}</button>`}
                    </div>
                  </li>`,
              )}
            </ul>`
    }
  </section>`;
}
