## General
private-only = This bot works in private chats only. Open a private chat with me to use it.
error-generic = Something went wrong on our side. Please try again. If it keeps happening, quote this error id: <code>{ $id }</code>
unknown-command = I don't know the command /{ $command }. Send /help to see what I can do.
unknown-command-flow-left = The question I had asked is closed, and nothing was changed.
unknown-command-suggest = Did you mean /{ $command }?
unknown-text = I didn't understand that. Send /help for the list of commands, or /start for the menu.
button-expired = This button is no longer valid.
flow-closed = This question is closed. Start again from the command.
flow-not-this-question = This button does not answer the open question. Use the buttons under the last question, or type your answer.
flow-expired = ⌛ This question has expired, and nothing was changed. Start again with { $command }.
flood-warning = You are sending messages too fast. I will ignore new ones for a few seconds.
secret-pasted = ⚠️ That looked like a wallet private key or a seed phrase, so I deleted it. Never share it with anyone, including bots. Consider that wallet exposed: move its funds to a new wallet.
language-en = English
language-ru = Русский
language-zh = 中文
resource-energy = Energy
resource-bandwidth = Bandwidth
# An amount of a resource: $volume as the language writes the number, $count the same number (for
# the plural forms), $resource "energy", "bandwidth" or "other", $word the marketplace's own name for another.
resource-amount = { $volume } { $resource ->
    [energy] Energy
    [bandwidth] { $count ->
       *[other] Bandwidth
    }
   *[other] { $word }
  }
state-on = on
state-off = off

## Start and help
start-welcome = 👋 Welcome, { $name }! I buy TRON energy and bandwidth for you on the marketplace, run automation rules and push alerts.
start-language = Language: { $language } (change it in /settings)
start-linked = 🔗 Linked API key: …<code>{ $last4 }</code>
start-linked-broken = ⚠️ Your API key …<code>{ $last4 }</code> no longer works. Link a new one with /connect.
start-not-linked = No API key linked yet. Send /connect to link one; /quote works without it.
start-sandbox = 🧪 sandbox: no real TRX. This bot is connected to the sandbox marketplace.
help-title = <b>Commands</b>
help-arguments = Arguments are optional: without them I ask step by step. Volumes: 65000, 65k, 1.5m; durations as the marketplace lists them (15m, 1h, 1d).
help-key-argument = &lt;API key&gt;
menu-quote = 💱 Quote
menu-buy = ⚡ Buy
menu-orders = 📦 Orders
menu-rules = 🤖 Rules
menu-wallet = 👛 Wallet
menu-notifications = 🔔 Notifications
menu-settings = ⚙️ Settings
menu-watches = 👀 Watches
menu-stats = 📊 Stats
menu-webhook = 🪝 Webhook
cancel-done = Cancelled. Nothing was changed.
cancel-nothing = There is nothing to cancel.
command-start = welcome, linking state and the main menu
command-help = every command with one line each
command-connect = link your marketplace API key
command-disconnect = forget your key and stored data
command-quote = public price quote (no key needed)
command-buy = buy energy or bandwidth for an address
command-orders = your orders, newest first, and stats
command-addresses = your recently used addresses
command-rules = automation rules: pause, resume, cancel
command-refill = create an auto-refill rule
command-renewal = create a daily auto-renewal rule
command-smart = create a smart-mode rule
command-newrule = create a rule, guided
command-wallet = TRX and USDT balances
command-topup = deposit address and QR code
command-transactions = the ledger of your balance
command-notifications = marketplace notifications
command-webhook = your personal webhook URL for order alerts
command-settings = language and pushed alerts
command-group = team alerts: copy your alerts into a group
command-group-here = whose alerts come to this group
command-cancel = leave any guided flow

## Buttons
button-confirm = ✅ Confirm
button-cancel = ✖️ Cancel
button-connect = 🔗 Connect a key
button-try-again = 🔁 Try again
button-topup = 💳 Top up
button-buy-this = ⚡ Buy this
button-refresh = 🔄 Refresh
button-auto-resume = 🔁 Auto-resume: { $value }
# Copy buttons (button-copy, button-copy-address) carry no emoji: Telegram draws its own copy icon on them.
button-copy = Copy
button-rotate = ♻️ Rotate
button-resume = ▶️ Resume
button-prev = ◀️ Prev
button-next = Next ▶️
button-back = ⬅️ Back
button-stats = 📊 Stats

## Linking
connect-ask = Send me your marketplace API key in the next message. I will delete that message at once, check the key and store it encrypted. /cancel to stop.
connect-replaces = You already have a key …<code>{ $last4 }</code> linked; a new one replaces it.
connect-linked = ✅ Key …<code>{ $last4 }</code> linked.
connect-replaced = ✅ Key …<code>{ $last4 }</code> linked. It replaces your previous key.
connect-rejected = ❌ The marketplace did not accept that key. Nothing was stored. Check that you copied the whole key and that it is not revoked.
connect-unreachable = ❌ I could not reach the marketplace to check the key. Nothing was stored. Please try again in a minute.
connect-bad-shape = ❌ That does not look like an API key (8–256 characters, no spaces). Nothing was stored.
connect-edited = I deleted that edited message because it may carry an API key. Edits are not read: send /connect again and paste the key in a new message.
connect-too-many = Too many attempts to link a key. Please wait an hour and try again.
connect-needed = This needs a linked marketplace API key. Link one with /connect.
key-broken = ⚠️ Your API key …<code>{ $last4 }</code> no longer works (the marketplace refused it). Link a new one with /connect.
key-broken-now = ⚠️ The marketplace refused your API key: it no longer works. Alerts are paused until you link a new one with /connect.
key-relink = ⚠️ Your stored key cannot be read any more. Please relink your key with /connect.
balance-line = Balance: <b>{ $trx } TRX</b> · <b>{ $usdt } USDT</b>
disconnect-ask = Forget the key …<code>{ $last4 }</code> and everything stored for you (addresses, auto-buys, price watches, pending confirmations, queued alerts)? Auto-buys are deleted: nothing more is bought.
disconnect-done = Done. Your key and stored data are deleted. Link again any time with /connect.
disconnect-kept = Nothing was changed.
disconnect-nothing = No key is linked, so there is nothing to forget.

## Settings and webhook
settings-title = <b>Settings</b>
settings-toast-changed = Your settings changed elsewhere: here they are as they are now. Nothing was changed.
settings-language = Language: { $language }
settings-alerts = Pushed alerts (tap to switch):
alerts-orders = Order settled
alerts-rules = Rule paused
alerts-deposits = Deposits
alerts-other = Other notifications
webhook-title = <b>Your personal webhook URL</b>
webhook-how = In the marketplace dashboard (Webhooks, needs a full-scope key) register this URL for the events <code>order.filled</code> and <code>order.failed</code>. Keep it private: anyone with it can send you alerts. It is shown only now; Rotate issues a new one.
webhook-how-playground = In the playground this URL is on this server, which the sandbox reaches: press “Register my /webhook URL” in the side panel, and settled orders come to it as the marketplace’s <code>order.filled</code> and <code>order.failed</code> webhooks. Keep it private: anyone with it can send you alerts. Rotate issues a new one.
webhook-exists = You already have a personal webhook URL. It is shown only when created; press Rotate to get a new one (the old one stops working at once).
webhook-rotated = ♻️ New URL issued; the old one no longer works.
webhook-no-public-url = Personal webhooks need the bot's public address. The operator must set <code>PUBLIC_URL</code> first. Until then, order alerts still arrive by polling.

## Input
ask-resource = Which resource?
ask-volume = How much { $resource }? Type a number (65000, 65k, 1.5m) or tap a preset.
ask-volume-short = How much { $resource }?
ask-duration = For how long?
ask-address = Which address receives it? Send a TRON address (T…).
ask-address-short = Which address receives it?
ask-cancel-hint = <i>/cancel to stop</i>
bounds-line = Allowed: { $min } – { $max }.
preset-65k = 65,000: the recipient already holds USDT.
preset-131k = 131,000: a new recipient (no USDT yet).
energy-sender-hint = ℹ️ Energy goes to the address that <b>sends</b> the USDT.
input-resource-bad = Please choose energy or bandwidth.
input-volume-format = I could not read that volume. Accepted forms: 65000, 65,000, 65 000, 65k, 1.5m.
input-volume-zero = The volume must be above zero.
input-volume-negative = The volume cannot be negative.
input-volume-fraction = The volume must be a whole number of units (1.5k is fine, 1.0005k is not).
input-volume-bounds = That volume is out of bounds. Allowed: { $min } – { $max }.
input-duration-bad = Please choose one of these durations: { $durations }.
input-address-format = That is not a TRON address. It starts with T and has 34 characters.
input-address-checksum = That address has a wrong checksum: probably a typo. Please copy it again.
input-argument-bad = I could not read “<code>{ $value }</code>”. Volumes are written 65000, 65,000, 65 000, 65k or 1.5m. Example: <code>{ $usage }</code>

## Quote and buy
addresses-title = <b>Your addresses</b> (last used first). ✏️ sets a label, 🗑 removes the address.
addresses-empty = Your address book is empty. Addresses you buy for are remembered here.
address-label-ask = Send a label for { $address } (up to { $max } characters), or - to remove its label.
address-label-bad = A label has 1 to { $max } characters. Send another one, or - to remove the label.
address-label-gone = That address is no longer in your address book. Nothing was changed.
address-label-saved = ✅ Label saved.
address-label-cleared = ✅ Label removed.
quote-title = <b>Price quote</b>
quote-line = { $amount } for { $duration }
quote-price = Price: <b>{ $price }</b> ({ $perUnit } sun per unit)
quote-note = <i>Public price without commission; your order preview shows the exact total.</i>
card-order-title = <b>Confirm your order</b>
card-resource = Resource: { $value }
card-volume = Volume: { $value }
card-duration = Duration: { $value }
card-target = Target: { $value }
card-price = Price: { $price } (commission { $commission })
card-activation = Activation fee: { $value } (the address is not activated yet)
card-savings = Savings vs burning: { $percent }% (burning would cost { $burn })
card-total = <b>Total: { $value }</b>
card-balance = Balance: { $value }
card-short = ⚠️ Your balance is short by { $value }. Top up first.
card-address-from-link = ⚠️ This address is from a link: check this address before you confirm. You have not used it here before, and a link anyone can post may carry someone else's address.
card-working = ⏳ Processing…
card-checking = ⏳ Processing… the marketplace did not answer in time, so I am checking whether it went through.
card-stale = This preview is more than 5 minutes old and prices move. Refresh it before confirming.
card-price-rose = The price rose since this card: the total is now <b>{ $now }</b>, the card showed { $was }. Nothing was charged. Refresh for a card at the new price.
card-refreshed = This card was replaced by a fresh preview below.
card-cancelled = ✖️ Cancelled. Nothing was charged.
card-cancelled-order-unknown = ✖️ Cancelled. The earlier attempt may still have placed the order: check /orders before buying again.
card-cancelled-rule-none = ✖️ Cancelled. No rule from this card is in your list; if one appears later, cancel it in /rules.
card-cancelled-rule-unknown = ✖️ Cancelled. The earlier attempt may still have created the rule: check /rules.
card-cancelled-rule-exists = The earlier attempt did create this rule, so there was nothing to cancel here. To stop it, tap Cancel rule.
card-cancelled-toast = This card was cancelled.
card-expired = This confirmation is no longer valid.
card-already-done = Already done: nothing was charged twice.
card-processing = Already processing…
card-locked = This confirmation was already sent to the marketplace and can no longer change.
card-no-key = No working API key is linked any more. Nothing was done.
card-unknown-state = ⚠️ I could not confirm the result with the marketplace. Tap Confirm to check again: the same confirmation never charges twice.
card-attempt-expired = ⚠️ An earlier Confirm on this card could not be confirmed, and no matching order shows in your order list. It was over 24 hours ago, so I will not send it again (the marketplace may no longer recognise it, and a second charge is possible). Check /orders, or press Refresh for a new preview.
order-placed = ✅ Order placed: { $status }, waiting for delivery.
order-charged = Charged: { $value }
order-charged-more = ⚠️ That is more than the card showed ({ $shown }). Check /orders and /wallet, and tell the marketplace if it is wrong.
order-id-line = Order { $id }
order-placed-followup = I will tell you when it is delivered.
orders-title = <b>Your orders</b> (page { $page } of { $pages }, { $total } in all)
orders-empty = No orders yet. Buy energy with /buy.
orders-line = { $status } · { $amount } · { $total }
orders-stats = <b>Order stats</b>
    Total orders: { $total }
    Energy delivered this month: { $energy }
order-card-title = <b>Order</b> { $id }
order-card-status = Status: { $value }
order-card-price = Price: { $value }
order-card-activation = Activation: { $value }
order-card-tx = Transaction: { $value }
order-card-created = Created: { $value }
# An order's status: $status the marketplace's word in lower-case letters only, $word the word as it wrote it.
order-status = { $status ->
    [created] Created
    [pending] Pending
    [filled] Filled
    [failed] Failed
    [cancelled] Cancelled
    [canceled] Cancelled
    [refunded] Refunded
    [expired] Expired
   *[other] { $word }
  }

## Errors from the marketplace
error-insufficient-balance = ❌ Not enough TRX on your balance. Top up and try again.
error-scope = ❌ This API key is read-only. Create a key with the purchase scope in the dashboard and link it with /connect.
error-forbidden = ❌ The marketplace did not allow this with your API key: { $detail }
error-spend-limit = ❌ The daily spend limit of this API key is reached. It resets at 00:00 UTC, or raise it in the dashboard.
error-provider-failed = ❌ The provider turned this order down at once: no order was placed, and nothing was charged. Try again for a fresh confirmation card.
error-rejected = ❌ The marketplace refused the request: { $detail }
error-not-found = ❌ Not found: it may have been removed.
error-conflict = ❌ That is not possible right now: { $detail }
error-rate-limited = ⏳ The marketplace is busy. Please try again in a few seconds.
error-unavailable = ⚠️ The marketplace is not answering right now. Please try again in a minute.

## Alerts
alert-order-filled = ✅ Order <code>{ $id }</code> filled.
alert-delivered = Delivered { $amount }
alert-target = To: { $value }
alert-total = Paid: { $value }
alert-tx = Transaction: { $link }
alert-filled-hint = Until the rental ends, transactions from this address (a USDT transfer, for example) use the delegated resource instead of burning TRX.
tx-sandbox = sandbox transaction
alert-order-failed = ❌ Order <code>{ $id }</code> failed.
alert-refunded = The TRX was refunded to your balance.
alert-refunded-amount = { $value } was refunded to your balance.
alert-rule-paused = ⏸ Rule <code>{ $id }</code> paused by the marketplace.
alert-rule-paused-unknown = ⏸ One of your rules was paused by the marketplace.
alert-pause-why = Why: not enough balance for the next delivery.
alert-pause-why-both = Why: not enough balance. The marketplace saw { $balance }; the next delivery costs { $cost }.
alert-pause-why-cost = Why: not enough balance. The next delivery costs { $cost }.
alert-pause-why-balance = Why: not enough balance. The marketplace saw { $balance }.
alert-group-details = The details, amounts included, are in the owner's private chat.
alert-rules-hint = Open /rules to see which one and resume it.
alert-key-broken = ⚠️ The marketplace refused your API key …<code>{ $last4 }</code>: it no longer works. Notification and order alerts are paused until you link a new key with /connect.

## Wallet
wallet-title = <b>👛 Wallet</b>
wallet-trx = TRX: <b>{ $value } TRX</b>
wallet-usdt = USDT-TRC20: <b>{ $value } USDT</b>
wallet-hint = Purchases are paid from the TRX balance. Top up to add funds.
wallet-refreshed = Balances refreshed
button-transactions = 📜 Transactions
topup-title = <b>💳 Top up your balance</b>
topup-address-too-long = ⚠️ The marketplace gave a deposit address { $length } characters long, too long to show here safely. Please take the deposit address from the marketplace's dashboard.
topup-address = Your deposit address (tap to copy):
topup-network = Network: <b>{ $network }</b>
topup-minimums = Minimum deposit:
topup-minimum-line = • { $currency }: <b>{ $amount }</b>
topup-no-minimums = Minimum deposit: not given by the marketplace.
topup-warning = ⚠️ Send only { $currencies } to this address, over the TRON network ({ $network }). Any other token, or a transfer over another network, is lost for good.
topup-credited = Deposits are credited after network confirmation; see /wallet and /transactions.
topup-caption = QR code of your { $network } deposit address:
button-copy-address = Copy address
transactions-title = <b>📜 Transactions</b> (page { $page } of { $pages }, { $total } in all)
transactions-filter = Filter: { $value }
transactions-toast-changed = New transactions arrived: here is this page as it is now. Nothing was changed.
transactions-line = { $time } · { $type } · <b>{ $amount } { $currency }</b> · { $status }
transactions-empty = No transactions yet. Top up with /topup: your deposits, order payments and refunds will show here.
transactions-empty-filtered = No transactions match this filter. Tap “All” to see everything.
transactions-all-currencies = All currencies
transactions-all-types = All types
# A ledger entry's type and status: $type or $status the marketplace's word in lower-case letters only, $word as it wrote it.
ledger-type = { $type ->
    [deposit] Deposit
    [orderpayment] Order payment
    [orderrefund] Order refund
    [automationcharge] Rule delivery
    [adjustment] Adjustment
    [withdrawal] Withdrawal
    [refund] Refund
   *[other] { $word }
  }
ledger-status = { $status ->
    [completed] Completed
    [pending] Pending
    [failed] Failed
    [cancelled] Cancelled
    [canceled] Cancelled
   *[other] { $word }
  }
notifications-title = <b>🔔 Notifications</b> · { $unread } unread (page { $page } of { $pages }, { $total } in all)
notifications-empty = No notifications yet. The marketplace posts here when an order settles, a deposit is credited or a rule is paused.
notifications-link = 🔗 <a href="{ $url }">Open link</a>
notifications-legend = 🔵 unread · ⚪ read
button-mark-read = ✔️ Mark read { $n }
button-mark-all-read = ✅ Mark all read
notifications-marked = Marked as read
notifications-all-marked = All marked as read
notifications-quoted = in the marketplace's words:
# Marketplace notifications of a kind the bot knows, in the reader's words (the facts read from the marketplace's text).
notice-quoted = 💬 In the marketplace's words:
notice-order-filled = ✅ Order filled
notice-order-failed = ❌ Order failed
notice-deposit = 💰 Deposit credited
notice-rule-paused = ⏸ Rule paused
notice-rule-resumed = ▶️ Rule resumed
notice-rule-skipped = ⏭ A rule's delivery was skipped
notice-delivered = Delivered: { $amount }
notice-delivered-for = Delivered: { $amount } for { $duration }
notice-ordered = Ordered: { $amount }
notice-ordered-for = Ordered: { $amount } for { $duration }
notice-deposit-amount = { $amount } was credited to your balance.
notice-rule = { $kind } rule for { $address }
notice-rule-unnamed = A rule for { $address }
notice-rule-resumed-why = It resumed by itself after the top-up.
notice-rule-skipped-why = That delivery would have gone over the daily spend limit of the key that created the rule. The rule stays active.
notice-cost = The delivery costs { $value }.

## Rules
button-pause = ⏸ Pause
button-cancel-rule = 🗑 Cancel rule
button-deliveries = 📋 Deliveries
button-new-rule = ➕ New rule
button-yes = Yes
button-no = No
rule-kind-refill = Auto-refill
rule-kind-renewal = Auto-renewal
rule-kind-smart = Smart mode
rule-status-active = active
rule-status-paused = paused
rule-status-cancelled = cancelled
rules-title = <b>Your automation rules</b> (page { $page } of { $pages }, { $total } in all)
rules-empty = You have no automation rules yet. Create one with /refill, /renewal, /smart or the guided /newrule.
rules-hint = Tap a rule to open it.
rules-line = { $kind } · { $target } · { $status }
rule-card-title = <b>{ $kind }</b> rule { $id }
rule-card-target = Target: { $value }
rule-card-minimal = Refill below: { $value } energy
rule-card-volume = Volume: { $value } energy
rule-card-volume-smart = Volume: about 131,000 energy per delivery (chosen by the provider)
rule-card-duration = Duration: { $value }
rule-card-status = Status: <b>{ $value }</b>
rule-card-paused-user = Pause reason: you paused it. It stays paused until you tap Resume.
rule-card-paused-system = Pause reason: the marketplace paused it, because the TRX balance could not cover the next delivery.
rule-card-paused-system-auto = It resumes by itself after a top-up.
rule-card-paused-system-manual = It does not resume by itself: top up, then tap Resume.
rule-card-paused-other = Pause reason: { $value }
rule-card-auto-resume = Auto-resume after a top-up: { $value }
rule-card-spent = TRX spent: { $value }
rule-card-created = Created: { $value }
rule-card-updated = Updated: { $value }
rule-card-cancelled = This rule is cancelled for good. Create a new one to start again.
rule-cancel-ask = ⚠️ Cancel this rule? Cancelling is final: a cancelled rule cannot be resumed, you would have to create a new one.
rule-toast-paused = Paused.
rule-toast-resumed = Resumed.
rule-toast-cancelled = Rule cancelled.
rule-toast-changed = This rule changed elsewhere: here is its current state. Nothing was done.
rules-toast-changed = The rules changed elsewhere: here is the list as it is now. Nothing was done.
rule-toast-not-found = This rule no longer exists: the list is refreshed.
rule-toast-failed = The marketplace refused this: see the message.
rule-resume-short = ⚠️ Not enough TRX to resume: the balance must cover one more delivery. Top up, then tap Resume.
deliveries-title = <b>Deliveries</b> of rule { $id }: { $count }
deliveries-empty = No deliveries yet. Each time the rule fires, the delivery shows here with its time, volume and price.
deliveries-line = { $time } · { $volume } · { $duration } · { $trx }
deliveries-more = … and { $count } older not shown.
newrule-ask-kind = Which kind of rule?
    • <b>Auto-refill</b>: when the address's energy falls below a threshold, a fixed volume is delivered.
    • <b>Auto-renewal</b>: a fixed volume of energy is renewed once a day, whatever is left.
    • <b>Smart mode</b>: the provider decides when to deliver; each delivery is about 131,000 energy.
newrule-kind-bad = Please choose one of the kinds with the buttons: refill, renewal or smart.
ask-rule-address = Which address should the rule look after? Send a TRON address (T…).
ask-rule-minimal = Refill when the address's energy falls below how much? Type a number (65000, 65k).
ask-rule-volume = How much energy per delivery? Type a number (65000, 65k, 1.5m) or tap a preset.
ask-rule-renewal-volume = How much energy should be renewed each day? Type a number (65000, 65k, 1.5m) or tap a preset.
ask-rule-duration = For how long is each delivery?
ask-auto-resume = If the rule is paused because your balance ran out, should it resume by itself after a top-up? (default: No)
input-yes-no = Please answer Yes or No.
input-minimal-bad = The threshold must be a whole number above zero, for example 65000 or 65k.
rule-confirm-title = <b>Confirm the new rule</b>
rule-confirm-kind = Kind: { $value }
rule-confirm-trigger-refill = When it fires: each time the energy of the address falls below { $minimal }, { $volume } energy is delivered for { $duration }.
rule-confirm-trigger-renewal = When it fires: once a day, { $volume } energy is renewed for a day, whatever is left.
rule-confirm-trigger-smart = When it fires: the provider decides when the address needs energy; each delivery is about 131,000 energy for 1h.
rule-confirm-cost = Cost of one firing: <b>{ $value }</b> (commission { $commission })
rule-confirm-cost-estimate = Cost of one firing (estimate): <b>{ $value }</b> (commission { $commission })
rule-confirm-estimate-priced-for = The marketplace lists no one-day duration, so this estimate is priced for { $duration }; a daily renewal may cost more.
rule-confirm-charged = Each firing is charged to your TRX balance; there is no prepaid budget. You can pause or cancel the rule at any time in /rules.
rule-confirm-short = ⚠️ Your balance does not cover one firing. Top up first.
rule-confirm-short-refill = ⚠️ Your balance does not cover one firing yet: the rule would be paused at its first firing until you top up.
rule-created = ✅ Rule created.

## Stats and weekly digest
command-stats = spending as a chart, 7 or 30 days
stats-title = 📊 <b>Spending, last { $days } days</b>
stats-period = last { $days } days
stats-range = { $from } – { $to } ({ $zone })
stats-spent = Spent: <b>{ $trx }</b>
stats-delivered = Delivered in this period (your orders and rule firings): { $energy } energy · { $bandwidth } bandwidth
stats-orders = Orders: { $placed } placed · { $filled } filled · { $failed } failed
stats-firings = Rule firings: { $count }
stats-saving = Saved against burning TRX: ≈ { $trx }
stats-saving-how = <i>Estimate: the energy delivered, priced at the marketplace's burn cost ({ $sun } sun a unit, from an order preview now), minus what that energy cost.</i>
stats-saving-unknown = Saved against burning TRX: not shown, the marketplace gave no burn cost.
stats-ledger = Ledger: { $charged } charged · { $refunded } refunded
stats-marketplace = The marketplace's own figures for your key: { $total } { $count ->
    [one] order
   *[other] orders
  } in all · { $energy } energy delivered this calendar month
stats-partial = ⚠️ Partial figures: more { $what } than { $limit } requests read.
stats-partial-orders = orders
stats-partial-ledger = ledger entries
stats-partial-firings = rule firings
stats-empty = Nothing spent in this period.
stats-chart-title = TRX spent per day
stats-chart-axis = TRX
stats-source-orders = One-off orders
stats-source-others = Other rules
button-days-7 = 7 days
button-days-30 = 30 days
digest-title = 📬 <b>Weekly digest</b>: last week's spending
digest-period = last week
digest-footer = Turn the digest off or change its time zone in /settings.
settings-digest = Weekly digest: { $state }
settings-digest-when = Sent on Mondays at 09:00, { $zone }. Time zone (tap to choose):
button-digest = 📬 Weekly digest: { $state }

## Price watches, inline mode and deep links
command-watch = price watch: an alert when a rent costs at most your TRX
command-watches = your price watches: pause, resume, delete
alerts-prices = Price watches
button-buy-now = 🛒 Buy now
button-delete = 🗑 Delete
button-watches = 📋 All watches
button-watch-open = ⚙️ { $n }
button-watch-pause = ⏸ Pause { $n }
button-watch-resume = ▶️ Resume { $n }
button-watch-delete = 🗑 Delete { $n }
button-watch-rearm-above = 🔁 Rearm when the price goes back above
button-watch-rearm-cooldown = 🔁 Rearm after the cooldown
button-buy-in-bot = ⚡ Buy in the bot
watch-card-title = 👁 <b>Price watch</b> <code>{ $id }</code>
watch-target = { $amount } for { $duration }
watch-address = For: { $value }
watch-threshold = Alert when it costs at most <b>{ $threshold }</b>
watch-price-now = Price now: { $price } (seen { $time })
watch-price-unknown = Price now: not seen yet
watch-status = Status: { $value }
watch-status-active = 🟢 watching
watch-status-resting = 💤 resting after an alert
watch-status-paused = ⏸ paused
watch-cooldown = Quiet after an alert: { $value }
watch-cooldown-15m = 15 min
watch-cooldown-1h = 1 h
watch-cooldown-1d = 1 day
watch-rearm-above = It alerts again once the price has gone back above the threshold and down again.
watch-rearm-cooldown = It alerts again after the cooldown while the price stays at or below the threshold.
watch-created = ✅ Watching. You get an alert when the public price reaches your threshold.
watch-created-own = ✅ Watching. You get an alert when your own order, commission included, costs at most your threshold.
watch-updated = ✅ You already watched this rent: its threshold is updated and the watch is active.
watch-already-below = ℹ️ The price is already at or below your threshold: the alert comes with the next check.
watch-limit = You already have { $max } price watches, the most allowed. Delete one in /watches first.
watch-deleted = 🗑 Watch <code>{ $id }</code> deleted.
watch-gone = This watch no longer exists.
watch-link-ask = 🔗 A link asks to save this price watch:
watch-link-hint = Nothing is saved until you tap Confirm.
watch-link-cancelled = ✖️ Cancelled. No watch was saved.
watches-toast-changed = The watches changed meanwhile: here they are as they are now.
watches-title = <b>Your price watches</b> ({ $count } of { $max })
watches-last = now { $price }
watches-empty = You have no price watches yet. Example: <code>/watch energy 65k 1h 2.5</code> alerts you when 65,000 energy for 1 hour costs at most 2.5 TRX.
ask-watch-price = Alert you when it costs at most how many TRX? Now it costs { $price }. Type an amount (2.5) or tap one.
input-watch-price-format = I could not read that TRX amount. Write it like 2.5 or 2.5 TRX (a point, not a comma).
input-watch-price-zero = The price limit must be above zero.
input-watch-price-precision = TRX has at most 6 decimals (0.000001).
input-watch-price-high = That limit is far above any rent. Please check the number.
alert-watch-reached = 💹 Price watch <code>{ $id }</code>: the price reached your threshold.
alert-watch-target = { $amount } for { $duration }
alert-watch-price = Price: <b>{ $price }</b> (your threshold: { $threshold })
alert-watch-total = Your order would cost <b>{ $total }</b> in all (your threshold: { $threshold })
alert-watch-public = This is the public price, without the marketplace's commission: your own order costs a little more.
alert-watch-public-connect = Link your key with /connect, and the watch compares what your own order would cost.
alert-watch-at = Seen at { $time }
alert-watch-hint = Buy now opens a confirmation card with a fresh price: nothing is bought until you confirm. The watch now rests for its cooldown.
inline-title = { $target }: { $price }
inline-description = { $perUnit } sun per unit · live public price
inline-note = <i>Live public price without commission. Buy it in { $bot }.</i>
inline-help = Type a volume and a duration, e.g. 65k 1h
inline-unpriced = No price for that now: open the bot
inline-slow-down = Too many requests: wait a few seconds
start-link-bad = ⚠️ That link could not be read, so nothing was opened. Here is the start screen.
share-word = Share
share-line = 🔗 { $link } a link that opens this in the bot

# The bot's profile (setMyDescription, setMyShortDescription)
bot-description = I buy TRON energy and bandwidth for you on the marketplace: quotes, orders with a confirmation card, automation rules, price watches and alerts the moment an order settles. Link your marketplace API key with /connect; /quote works without one.
bot-short-description = TRON energy and bandwidth: quote, buy, automate and get alerts.

## Buy again
# No emoji on Buy again: the product names its English label word for word.
button-buy-again = Buy again
buy-again-no-key = No API key is linked now, so nothing was ordered. Link your key with /connect, then press Buy again on the order in /orders.
buy-again-other-key = This order was placed with another key (…<code>{ $then }</code>) than the one linked now (…<code>{ $now }</code>), so nothing was ordered. /orders lists the orders of the key linked now, each with Buy again.
buy-again-relinked = This button is from before the key …<code>{ $now }</code> was linked again, so nothing was ordered. Open /orders and press Buy again on the order there.
buy-again-not-found = The key linked now (…<code>{ $now }</code>) does not see this order, so nothing was ordered. /orders lists the orders it can repeat.

## Dashboard (the Mini App)
command-dashboard = your balances, rules, orders and spending on one screen
button-dashboard = Dashboard
# The menu button beside the message field, opening the dashboard (a few words: Telegram shows it small).
menu-button = Dashboard
dashboard-open = 📊 Your dashboard: balances, rules, recent orders and spending on one screen. Tap Dashboard to open it.
dashboard-needs-https = The dashboard is a Telegram Mini App, and Telegram opens Mini Apps only from an https address. Set <code>PUBLIC_URL</code> to this server's public https origin (for example https://bot.example.com) and restart the bot. Until then /wallet, /rules, /orders and /stats show the same.
dashboard-playground = In the playground the dashboard opens beside this chat: press "Open the dashboard" in the side panel.
miniapp-title = Dashboard
miniapp-loading = Loading…
miniapp-balances = Balances
miniapp-unread = Unread notifications
miniapp-unread-none = No unread notifications
miniapp-rules = Rules
miniapp-rules-empty = No automation rules yet. Create one in the chat with /newrule.
miniapp-autobuys = Auto-buys
miniapp-autobuys-empty = No auto-buys yet. Make one in the chat with /autobuy: the dashboard only pauses and resumes them.
miniapp-paused-by-user = paused by you
miniapp-paused-by-system = paused by the marketplace
miniapp-spent = spent
miniapp-pause = Pause
miniapp-resume = Resume
miniapp-orders = Recent orders
miniapp-orders-empty = No orders yet.
miniapp-buy = Buy energy in the chat
miniapp-buy-again = Buy again
miniapp-spending = Spending
miniapp-days-7 = 7 days
miniapp-days-30 = 30 days
miniapp-connect-first = No API key is linked. Link one in the chat with /connect, then open the dashboard again.
miniapp-key-broken = The marketplace refused your API key. Link a new one in the chat with /connect.
miniapp-unauthorized = This page could not prove who you are: Telegram's sign-in data is missing, altered or older than an hour. Close it and open the dashboard again from the bot's chat.
miniapp-no-init-data = Open the dashboard from the bot's chat in Telegram: it needs Telegram's sign-in data to show your account.
miniapp-retry = Try again
miniapp-failed = Something went wrong. Try again.
miniapp-slow-down = Too many requests in a short time. Wait a minute, then try again.
miniapp-rule-busy = This rule is still being changed: wait for that answer, then try again.

## Team alerts
button-choose-group = Choose a group
button-stop-group = Stop group alerts
button-add-to-group = ➕ Add to a group
group-intro = 👥 <b>Team alerts</b>: copy your alerts into a group, so your team sees them too. Private alerts go on as before.
    Am I not in the group yet? Press <b>Add to a group</b> and pick it (you must be an admin there).
group-choose = Press <b>Choose a group</b> below and pick the group (you must be an admin there, and I must be a member).
group-kind-filled = Order filled
group-kind-failed = Order failed
group-kind-paused = Rule paused
group-kind-prices = Price watch
group-kind-other = Other notifications
group-card-title = 👥 Your alerts are copied to <b>{ $title }</b>.
group-card-copied = Copied: { $kinds }.
group-card-none = No alert is copied now: switch some on below.
group-card-hint = Tap an alert to switch it on or off. A copy shows what happened, never your balance or what your orders cost (those stay in this chat); buttons that spend never appear in the group, and only you can pause or resume your rules there.
group-none-linked = No group is linked. Send /group to choose one.
group-stopped = Group alerts stopped: nothing more goes to <b>{ $title }</b>. Send /group to choose a group again.
group-refused-bot-missing = I am not a member of that group. Add me to it, then choose it again with /group.
group-refused-bot-muted = I am in that group but may not send messages there. Let me send messages (in the group's settings for me), then choose it again with /group.
group-refused-not-admin = You are not an admin of that group. Only an admin can send alerts there.
group-check-unanswered = Telegram did not answer when I checked that group, so nothing was linked. Try again in a moment with /group.
group-untitled = the group
group-linked = ✅ Linked: your alerts will be copied to <b>{ $title }</b>.
group-alert-owner = 👤 <b>{ $name }</b>
group-ended-removed = 👥 I was removed from <b>{ $title }</b>, so your alerts no longer go there. Send /group to choose a group again.
group-ended-not-admin = 👥 You are no longer an admin of <b>{ $title }</b>, so your alerts no longer go there. Send /group to choose a group again.
group-ended-refused = 👥 Telegram no longer lets me write to <b>{ $title }</b>, so your alerts no longer go there. Send /group to choose a group again.
group-here-title = 👥 Alerts of these members come here:
group-here-none = No member's alerts come here yet. A member who is an admin here sends /group to me in private to set it up.
group-welcome = 👋 Hi! I copy team members' alerts here: orders filled or failed, rules paused, price watches. A member who is an admin here sends /group to me in a private chat to set it up. Everything else works in a private chat with me.
group-here-more = …and { $count } more.
group-not-owner = Only { $name } can pause or resume this rule.
group-not-owner-unnamed = Only the owner of this rule can pause or resume it.
group-owner-no-key = The owner's API key is not linked any more.
group-rule-failed = The marketplace did not accept that. Try again from /rules in private.
group-rule-resumed = Rule resumed.
group-rule-paused = Rule paused.

## Spend guard and reminders
button-spend = ✅ Yes, spend { $total }
card-cap-today = Today through this bot: { $spent } of { $cap } TRX
card-cap-over = ⛔ This order would take today's buying through this bot to { $after }, over your daily cap of { $cap }. It cannot be confirmed today: the cap resets at 00:00 UTC, or change it in /settings.
card-cap-refused = ⛔ Not placed: today's buying through this bot is already { $spent } of your daily cap of { $cap }, and this order costs { $total }. Nothing was charged. The cap resets at 00:00 UTC; change it in /settings.
card-ask-again-title = <b>Are you sure?</b>
card-ask-again-order = { $volume } { $resource } for { $duration }
card-ask-again = This order costs more than the { $threshold } above which you asked to be asked again (/settings). Tap “{ $button }” to place it, or Cancel.
alerts-ends = Rental ending
alerts-deliveries = Rule deliveries
warning-12 = 12 h
warning-24 = 24 h
warning-72 = 3 days
warning-0 = off
settings-balance-warning = Low balance warning: { $value } (tap below to choose)
settings-guard-title = <b>Spend guard</b>
settings-ask-above = Ask again above: { $value }
settings-daily-cap = Daily cap through this bot: { $value }
settings-daily-cap-set = Daily cap through this bot: { $value } (today so far: { $today })
button-ask-above = 🛡 Ask again above…
button-daily-cap = 🛡 Daily cap…
button-turn-off = Turn off
guard-ask-title = Ask again above
guard-cap-title = Daily cap
guard-ask-question = Send an amount in TRX: a confirmation card whose total is above it asks again, with a button that names the amount. Now: { $value }.
guard-cap-question = Send the most TRX to buy through this bot per day (UTC): cards show what was bought today, and above the cap they offer no Confirm. The key's own daily limit at the marketplace still applies. Now: { $value }.
guard-amount-off-hint = Send <code>off</code> to turn it off.
guard-amount-format = ❌ “{ $input }” is not an amount of TRX. Send a number such as 100 or 250.5, or off. Nothing was changed.
guard-amount-zero = ❌ The amount must be above 0 TRX. To turn it off, send off. Nothing was changed.
guard-amount-negative = ❌ The amount cannot be negative. Send a number above 0, or off. Nothing was changed.
guard-amount-precision = ❌ TRX has at most 6 decimals. Nothing was changed.
guard-amount-high = ❌ That is more than { $max }, the most this setting takes. Nothing was changed.
guard-ask-saved = ✅ Ask again above: { $value }. A card above it needs a second tap that names its total.
guard-ask-off = ✅ Ask again above is off: a card is confirmed with one tap.
guard-cap-saved = ✅ Daily cap through this bot: { $value } per UTC day.
guard-cap-off = ✅ The daily cap is off.
alert-rental-ends = ⏳ Your rental ends in { $minutes } min (order { $id }).
alert-rental-what = Rent: { $volume } { $resource } for { $duration }
alert-rental-at = Ends at { $time }.
alert-rental-hint = Renew opens a fresh confirmation card for the same rent at today's price.
button-renew = 🔁 Renew
runway-line = 📉 Rules: about { $perDay } TRX a day; your balance lasts { $lasts } (an estimate from the deliveries of the last 7 days).
runway-days = about { $count } { $count ->
    [one] day
   *[other] days
  }
runway-hours = about { $count } { $count ->
    [one] hour
   *[other] hours
  }
runway-under-hour = less than an hour
alert-low-balance = ⚠️ Low balance: { $balance } left.
alert-low-balance-delivery = It does not cover the next delivery of rule { $id } ({ $cost }): the marketplace pauses a rule whose next delivery the balance cannot pay.
alert-low-balance-runway = At about { $perDay } TRX a day (the last 7 days), your balance lasts { $lasts }: under the { $warning } you asked to be warned at.
alert-low-balance-hint = Top up to keep your rules running. This alert comes once; a top-up arms it again. The warning time is in /settings.
alert-delivered-firing = 📦 Rule { $id } ({ $kind }) delivered { $volume } energy to { $address } for { $price }.
alert-delivered-when = { $time } · for { $duration }
alert-delivered-time = { $time }
## Auto-buys
command-autobuy = auto-buy: buy a rent by itself when your total is at or under your cap, within a daily budget
command-autobuys = your auto-buys: pause, resume, delete, last orders
button-stop = ⏹ Stop
button-auto-buy = 🤖 Auto-buy
button-make-autobuy = 🤖 Make it auto-buy
button-autobuys = 📋 All auto-buys
button-autobuy-open = ⚙️ { $n }
button-autobuy-pause = ⏸ Pause { $n }
button-autobuy-resume = ▶️ Resume { $n }
button-autobuy-delete = 🗑 Delete { $n }
button-autobuy-orders = Orders a day: { $count }
button-autobuy-days = Lasts: { $days } d
autobuy-rent = { $volume } { $resource } for { $duration }
autobuy-card-title = 🤖 <b>Confirm an auto-buy</b>: nothing is bought now
autobuy-card-rent = Rent: { $rent }
autobuy-card-address = For: { $value }
autobuy-card-max = Most per order: <b>{ $value }</b> (your own order total: price and activation fee)
autobuy-card-total-now = Your total for this order now: { $value }
autobuy-card-budget = Daily budget: <b>{ $value }</b> (UTC day)
autobuy-card-orders = Orders a day: at most { $count }
autobuy-card-ends = Ends: { $days } days after you confirm (about { $time })
autobuy-card-worst = <b>Worst case: { $day } a day, { $all } in all</b> ({ $days } UTC days)
autobuy-card-balance = Balance now: { $value }
autobuy-card-one-rental = One rental per address at a time: no new order while one it placed for this address is still running.
autobuy-card-under-now = ℹ️ Your total is already at or under the cap: the first order may be placed at the next price check.
autobuy-card-authorizes = By confirming you authorize this bot to place these orders with your API key, without asking again, only within these bounds. You are told of every purchase, and can pause or stop it any time in /autobuys or with the Automatic buying switch in /settings.
autobuy-created = ✅ Auto-buy <code>{ $id }</code> created. Nothing was bought now. It buys when your total is at or under the cap, until { $time }. See it in /autobuys.
autobuy-limit = You already have { $max } auto-buys, the most allowed. Delete one in /autobuys first.
autobuy-switch-off = ⛔ Automatic buying is off in /settings: no auto-buy can be made or resumed until you turn it on there.
ask-autobuy-max = The most one order may cost, in TRX? Your own total for this order now is { $total } (price and activation fee); your balance is { $balance }. Type an amount (2.5) or tap one.
ask-autobuy-max-short = Most per order?
ask-autobuy-budget = How much may it spend in one UTC day, in TRX? At least the most per order ({ $max }). Type an amount or tap one.
ask-autobuy-budget-short = Daily budget?
input-autobuy-amount-format = I could not read that TRX amount. Write it like 2.5 or 2.5 TRX (a point, not a comma).
input-autobuy-amount-zero = The amount must be above zero.
input-autobuy-amount-precision = TRX has at most 6 decimals (0.000001).
input-autobuy-amount-high = That amount is far above any rent. Please check the number.
input-autobuy-max-over-balance = That is more than your balance ({ $balance }): no such order could be paid. Choose a lower amount, or top up first.
input-autobuy-budget-under-max = The daily budget must be at least the most per order ({ $max }), or not even one order fits in a day.
autobuy-status-active = 🟢 buying when the price is right
autobuy-status-paused = ⏸ paused by you
autobuy-status-paused-switch = ⏸ paused: Automatic buying was turned off
autobuy-status-waiting = ⏳ the key's daily spend limit is reached; it resumes by itself at { $time }
autobuy-status-stopped = ⏹ stopped: { $why }
autobuy-status-ended = 🏁 ended: its end date came
autobuy-status-ended-user = 🏁 stopped by you
autobuy-reason-user = by you
autobuy-reason-switch = Automatic buying was turned off
autobuy-reason-balance = the balance did not cover an order
autobuy-reason-scope = the API key may not buy
autobuy-reason-key = the API key was refused
autobuy-reason-provider = the provider failed twice in a row
autobuy-reason-rejected = the marketplace refused the order
autobuy-reason-relinked = another API key was linked
autobuy-reason-spend-limit = the key's daily spend limit
autobuy-reason-ended = its end date came
autobuys-empty = You have no auto-buys yet. Example: <code>/autobuy energy 65k 1h T… 3 10</code> buys 65,000 energy for 1 hour for your address whenever your total is at most 3 TRX, at most 10 TRX a day. A price watch's card has Make it auto-buy too.
autobuys-title = <b>Your auto-buys</b> ({ $count } of { $max })
autobuys-line = { $rent } → { $address } · ≤ { $max } · today { $left } of { $budget } left · ends { $ends }
autobuys-toast-changed = The auto-buys changed meanwhile: here they are as they are now.
autobuy-view-title = 🤖 <b>Auto-buy</b> <code>{ $id }</code>
autobuy-view-budget = Daily budget: { $budget } (left today: { $left }, UTC day)
autobuy-view-ends = Ends: { $time }
autobuy-view-price = Public price now: { $price } (seen { $time })
autobuy-view-price-unknown = Public price now: not seen yet
autobuy-view-status = Status: { $value }
autobuy-view-no-orders = No orders yet.
autobuy-view-orders = Last orders:
autobuy-view-order = • { $time } · { $total } · order { $id }
autobuy-view-order-refunded = • { $time } · { $total } · order { $id } (failed, refunded)
autobuy-gone = This auto-buy no longer exists.
autobuy-switch-off-toast = Automatic buying is off in /settings: turn it on there first.
autobuy-no-key-toast = No working API key is linked: link one with /connect first.
autobuy-ended-toast = This auto-buy has ended: make a new one with /autobuy.
autobuy-deleted = 🗑 Auto-buy <code>{ $id }</code> deleted.
autobuy-pause-done = Paused: nothing is bought until you resume it.
autobuy-resume-done = Resumed: it buys again when the price is right.
autobuy-stop-done = Stopped for good: nothing more is bought.
alert-autobought = 🤖 <b>Auto-bought</b> <code>{ $id }</code>: { $rent }
alert-autobought-target = For: { $value }
alert-autobought-total = Total: <b>{ $total }</b> (your cap: { $cap })
alert-autobought-left = Left of today's budget: { $left } of { $budget } (UTC day)
alert-autobought-hint = The usual filled or failed alert follows when the order settles.
alert-autobuy-stopped = ⏹ { $count ->
    [one] Auto-buy
   *[other] Auto-buys
  } stopped: { $names }
alert-autobuy-waiting = ⏸ { $count ->
    [one] Auto-buy
   *[other] Auto-buys
  } paused until the next UTC day: { $names }
alert-autobuy-why-balance = Why: your balance did not cover the next order (402).
alert-autobuy-do-balance = What to do: top up, then tap Resume.
alert-autobuy-why-scope = Why: your API key may not buy (403: it lacks the purchase scope).
alert-autobuy-do-scope = What to do: link a key that may buy with /connect, then resume it in /autobuys.
alert-autobuy-why-key = Why: the marketplace refused your API key (401).
alert-autobuy-do-key = What to do: link a working key with /connect, then resume it in /autobuys.
alert-autobuy-why-provider = Why: the provider failed twice in a row (502); those orders were refunded.
alert-autobuy-do-provider = What to do: tap Resume to try again later.
alert-autobuy-why-rejected = Why: the marketplace refused the order: { $detail }
alert-autobuy-do-rejected = What to do: check it in /autobuys; make a new one with /autobuy if something changed.
alert-autobuy-why-relinked = Why: another API key was linked; auto-buys made under the previous key stop.
alert-autobuy-do-relinked = What to do: resume it in /autobuys to buy with the key linked now.
alert-autobuy-why-ended = Why: its end date came.
alert-autobuy-do-ended = What to do: nothing more is bought; make a new one with /autobuy.
alert-autobuy-why-spend-limit = Why: your API key's daily spend limit is reached (403).
alert-autobuy-do-spend-limit = What to do: nothing; it resumes by itself at 00:00 UTC.
connect-autobuys-stopped = ⏹ { $count ->
    [one] Your auto-buy was
   *[other] Your { $count } auto-buys were
  } made under the previous key, so { $count ->
    [one] it is
   *[other] they are
  } stopped. Resume them in /autobuys to buy with this key.
settings-autobuying = Automatic buying: { $state }
settings-autobuying-on = Auto-buys buy within their bounds. Turning it off stops every auto-buy at once.
settings-autobuying-off = No auto-buy buys, and none can be made or resumed, until you turn it on. Turning it on resumes none by itself.
