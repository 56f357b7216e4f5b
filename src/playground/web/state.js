// The playground's web chat. Everything the bot wrote is untrusted: it is rendered from the
// message's plain text and entities (the fake's HTML parser output) with DOM APIs, never innerHTML.

export const $ = (id) => document.getElementById(id);
export const SAFE_LINK = /^(https?:|tg:)/i;
export const COMMAND_IN_TEXT = /(^|\s)(\/[a-z0-9_]{1,32})(?=$|\s|[.,;:!?)])/gi;

export const view = {
  config: null,
  userId: null,
  /** The team group shown as the chat (its negative id), or null for the user's private chat. */
  chatId: null,
  /** Events up to this id are already part of the shown chat snapshot. */
  syncedEventId: 0,
  unread: new Set(),
  seenCalls: new Set(),
  menuIndex: 0,
  /** Whether the person moved through the command menu with the arrow keys: only then does Enter take its item. */
  menuChosen: false,
  /** The rate the price slider was moved to and not yet applied (null: it shows the rate in force). */
  priceDraft: null,
  refreshTimer: null,
  /** The sandbox panel's last state, so its "what this will do" lines follow the inputs. */
  panelState: null,
  /** Whether the chat follows its newest message (false once the user scrolls up to read). */
  pinned: true,
};
