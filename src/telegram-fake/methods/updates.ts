import { TelegramApiError, badRequest } from "../api-error";
import { botUserJson } from "../message-json";
import type { MethodHandler } from "../method-context";
import { readBoolean, readInteger, readObject, readString } from "../param-readers";

export const getMe: MethodHandler = (context) => ({
  ...botUserJson(context.bot, true),
  supports_inline_queries: context.state.inlineMode,
});

export const getUpdates: MethodHandler = async (context, params) => {
  if (context.state.webhook) {
    throw new TelegramApiError(
      409,
      "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
    );
  }
  const allowedUpdates = readObject(params, "allowed_updates", "can't parse allowed_updates JSON array");
  return context.updates.poll({
    offset: readInteger(params, "offset"),
    limit: readInteger(params, "limit"),
    timeout: readInteger(params, "timeout"),
    allowedUpdates: Array.isArray(allowedUpdates) ? (allowedUpdates as string[]) : undefined,
    signal: context.signal,
  });
};

export const setWebhook: MethodHandler = (context, params) => {
  const url = readString(params, "url") ?? "";
  if (url === "") {
    context.state.webhook = null;
    return true;
  }
  // Telegram insists on HTTPS; the fake also lets a local test server on loopback receive updates.
  const parsed = URL.canParse(url) ? new URL(url) : null;
  const loopback = parsed?.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(parsed.hostname);
  if (!parsed || (parsed.protocol !== "https:" && !loopback)) {
    throw badRequest("bad webhook: An HTTPS URL must be provided for webhook");
  }
  const secretToken = readString(params, "secret_token");
  if (secretToken !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(secretToken)) {
    throw badRequest("secret token contains unallowed characters");
  }
  if (readBoolean(params, "drop_pending_updates")) context.updates.dropPending();
  context.state.webhook = secretToken ? { url, secretToken } : { url };
  return true;
};

export const deleteWebhook: MethodHandler = (context, params) => {
  context.state.webhook = null;
  if (readBoolean(params, "drop_pending_updates")) context.updates.dropPending();
  return true;
};

export const getWebhookInfo: MethodHandler = (context) => ({
  url: context.state.webhook?.url ?? "",
  has_custom_certificate: false,
  pending_update_count: context.updates.pendingCount(),
  max_connections: 40,
  ...(context.state.webhookLastError
    ? {
        last_error_date: context.state.webhookLastError.date,
        last_error_message: context.state.webhookLastError.message,
      }
    : {}),
});

export const acknowledge: MethodHandler = () => true;
