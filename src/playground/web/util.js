import { $, view } from "./state.js";

// The playground page: helpers.

export function h(tag, props, ...children) {
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

export async function api(path, body) {
  const init =
    body === undefined
      ? {}
      : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

export let toastTimer = null;
export function toast(text) {
  const element = $("toast");
  element.textContent = text;
  element.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (element.hidden = true), 2600);
}

export function alertBox(text) {
  $("alert-text").textContent = text;
  $("alert-dialog").showModal();
}

export async function copy(text, what) {
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

export const currentUser = () => view.config.users.find((user) => user.id === view.userId);

/**
 * A decimal string (an amount, a volume) as the chat writes it in English: thousands grouped with
 * commas, the fraction as given. Read from the string, never through floating point; anything
 * that is not a plain decimal is shown as it came.
 */
export function grouped(text) {
  const match = /^(-?)(\d+)(\.\d+)?$/.exec(String(text));
  if (!match) return String(text);
  return `${match[1]}${match[2].replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${match[3] || ""}`;
}
