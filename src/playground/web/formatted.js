import { botLink, openLink, sendText } from "./actions.js";
import { COMMAND_IN_TEXT, SAFE_LINK } from "./state.js";
import { copy, h } from "./util.js";

// The playground page: rendering text with entities.

/** Builds DOM from text + entities (UTF-16 offsets, as JavaScript strings use). */
export function renderFormatted(text, entities, inCode) {
  const sorted = [...(entities || [])].sort((a, b) => a.offset - b.offset || b.length - a.length);
  return build(text, 0, text.length, sorted, inCode);
}

export function build(text, start, end, entities, inCode) {
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

export function appendText(parent, text, inCode) {
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
    parent.append(
      h("span", { class: "cmd", text: command, title: `Send ${command}`, onclick: () => sendText(command) }),
    );
    last = commandStart + command.length;
  }
  parent.append(text.slice(last));
}

export function elementFor(entity, content) {
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
      return h(
        "pre",
        {},
        h(
          "code",
          entity.language
            ? { class: `language-${entity.language}`, title: "Click to copy", onclick: () => copy(content) }
            : { title: "Click to copy", onclick: () => copy(content) },
        ),
      );
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
