import { h, render } from "preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import htm from "htm";
import { createApi, TooManyRequests, Unauthorized } from "./api.js";
import { applyFullscreen, applyInsets, applyTheme, applyViewport } from "./theme.js";
import { guardSwipes } from "./swipes.js";
import { connect, haptic, launchParams, onEvent, openTelegramLink, ready, showBackButton } from "./telegram.js";
import { AutoBuys, Orders, Rules, Spending } from "./sections.js";
import { follow } from "./follow.js";

const html = htm.bind(h);
const TEXTS = JSON.parse(document.getElementById("texts").textContent);
const launch = launchParams();
const api = createApi(launch.initData);

function wordsFor(lang) {
  return TEXTS[lang] || TEXTS.en;
}

/** The language before the server said: the one Telegram's client reports. */
function firstLanguage() {
  const code = String((launch.user && launch.user.language_code) || "").slice(0, 2);
  return TEXTS[code] ? code : "en";
}

function Notice({ text, retry, t }) {
  return html`<section class="card notice" role="alert">
    <p id="notice">${text}</p>
    ${retry && html`<button class="button" onClick=${retry}>${t.retry}</button>`}
  </section>`;
}

function Balances({ sections, t }) {
  const balances = sections.balances;
  const unread = sections.unread;
  return html`<section class="card" id="balances">
    <h2>${t.balances}</h2>
    ${
      balances.error
        ? html`<p class="error">${balances.error}</p>`
        : html`<div class="balances">
            <div class="balance"><span class="amount" id="balance-trx">${balances.trx}</span></div>
            <div class="balance"><span class="amount" id="balance-usdt">${balances.usdt}</span></div>
          </div>`
    }
    <p class="hint" id="unread">
      ${unread.error ? unread.error : unread.count > 0 ? html`${t.unread}: <b>${unread.count}</b>` : t["unread-none"]}
    </p>
  </section>`;
}

function App() {
  const [lang, setLang] = useState(firstLanguage());
  const [state, setState] = useState({ phase: launch.initData ? "loading" : "no-init-data" });
  const t = wordsFor(lang);

  async function load() {
    try {
      const data = await api.dashboard();
      setLang(data.lang);
      setState({ phase: "ready", data });
    } catch (error) {
      setState({
        phase:
          error instanceof Unauthorized ? "unauthorized" : error instanceof TooManyRequests ? "slow-down" : "failed",
      });
    }
  }

  useEffect(() => {
    if (launch.initData) load();
    ready();
  }, []);

  useEffect(() => {
    document.documentElement.lang = lang;
    document.title = t.title;
  }, [lang]);

  // Counts the Pause and Resume taps started and ended here: a rule list read while one ran may
  // predate it, and is not drawn over the action's own answer.
  const actions = useRef(0);
  const rulesApi = useMemo(
    () => ({
      ruleAction(id, action) {
        actions.current += 1;
        return api.ruleAction(id, action).finally(() => (actions.current += 1));
      },
    }),
    [],
  );

  // While the dashboard is drawn and visible, its rules follow what changes elsewhere.
  const drawn = state.phase === "ready" && Boolean(state.data.sections);
  useEffect(() => {
    if (!drawn) return undefined;
    return follow(async () => {
      const before = actions.current;
      const answer = await api.rules();
      if (before !== actions.current) return;
      // The key was unlinked or refused meanwhile: the whole dashboard says what now.
      if (!answer.rules) return load();
      // A passing failure: the rules shown stay until a read works.
      if (answer.rules.error) return;
      setRules(() => answer.rules);
    });
  }, [drawn]);

  /** Replaces the rules shown with `change(rules)`, when the dashboard shows rules and they differ. */
  function setRules(change) {
    setState((current) => {
      if (current.phase !== "ready" || !current.data.sections) return current;
      const rules = change(current.data.sections.rules);
      if (JSON.stringify(rules) === JSON.stringify(current.data.sections.rules)) return current;
      return { ...current, data: { ...current.data, sections: { ...current.data.sections, rules } } };
    });
  }

  function replaceRule(rule) {
    if (!rule) return;
    setRules((rules) =>
      rules.items ? { items: rules.items.map((item) => (item.id === rule.id ? rule : item)) } : rules,
    );
  }

  function replaceAutoBuy(autoBuy) {
    if (state.phase !== "ready" || !autoBuy) return;
    const autoBuys = state.data.sections.autoBuys;
    setState({
      ...state,
      data: {
        ...state.data,
        sections: {
          ...state.data.sections,
          autoBuys: { items: autoBuys.items.map((item) => (item.id === autoBuy.id ? autoBuy : item)) },
        },
      },
    });
  }

  function tg(url) {
    haptic();
    openTelegramLink(url);
  }

  let body;
  if (state.phase === "no-init-data") body = html`<${Notice} text=${t["no-init-data"]} t=${t} />`;
  else if (state.phase === "unauthorized") body = html`<${Notice} text=${t.unauthorized} t=${t} />`;
  else if (state.phase === "slow-down") body = html`<${Notice} text=${t["slow-down"]} retry=${load} t=${t} />`;
  else if (state.phase === "failed") body = html`<${Notice} text=${t.failed} retry=${load} t=${t} />`;
  else if (state.phase === "loading") body = html`<p class="hint" id="loading">${t.loading}</p>`;
  else {
    const { data } = state;
    if (!data.sections)
      body = html`<${Notice} text=${data.key.state === "not_linked" ? t["connect-first"] : t["key-broken"]} t=${t} />`;
    else
      body = html`
        <${Balances} sections=${data.sections} t=${t} />
        <${Rules}
          rules=${data.sections.rules}
          api=${rulesApi}
          t=${t}
          onRule=${replaceRule}
          onUnauthorized=${() => setState({ phase: "unauthorized" })}
        />
        ${
          data.sections.autoBuys &&
          html`<${AutoBuys}
            autoBuys=${data.sections.autoBuys}
            api=${api}
            t=${t}
            onAutoBuy=${replaceAutoBuy}
            onUnauthorized=${() => setState({ phase: "unauthorized" })}
          />`
        }
        <${Orders} orders=${data.sections.orders} t=${t} open=${tg} />
        <${Spending} api=${api} t=${t} />
        ${data.bot && html`<button class="button wide" id="buy" onClick=${() => tg(`https://t.me/${data.bot}?start=buy`)}>${t.buy}</button>`}
      `;
  }
  return html`<header>
      <h1>${t.title}</h1>
      ${state.phase === "ready" && html`<span class="hint">${state.data.firstName}</span>`}
    </header>
    ${body}`;
}

applyTheme(launch.theme);
connect(launch.version);
onEvent("theme_changed", (data) => applyTheme(data.theme_params));
onEvent("viewport_changed", applyViewport);
applyFullscreen(launch.fullscreen);
onEvent("fullscreen_changed", (data) => applyFullscreen(Boolean(data && data.is_fullscreen)));
onEvent("safe_area_changed", (data) => applyInsets("safe-area", data));
onEvent("content_safe_area_changed", (data) => applyInsets("content-safe-area", data));
guardSwipes();
onEvent("back_button_pressed", () => {
  window.dispatchEvent(new CustomEvent("dashboard-back"));
});
showBackButton(false);
render(html`<${App} />`, document.getElementById("app"));
