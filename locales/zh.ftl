## General
private-only = 本机器人仅支持私聊。请与我开启私聊后使用。
error-generic = 我们这边出了点问题，请重试。如果问题持续出现，请提供此错误 ID：<code>{ $id }</code>
unknown-command = 我不认识命令 /{ $command }。发送 /help 查看我能做什么。
unknown-command-flow-left = 我之前的提问已关闭，没有做任何更改。
unknown-command-suggest = 您是想输入 /{ $command } 吗？
unknown-text = 我没看懂。发送 /help 查看命令列表，或发送 /start 打开菜单。
button-expired = 此按钮已失效。
flow-closed = 此问题已关闭。请从命令重新开始。
flow-not-this-question = 此按钮不是当前问题的答案。请使用最后一个问题下方的按钮，或直接输入答案。
flow-expired = ⌛ 此问题已过期，未做任何更改。请用 { $command } 重新开始。
flood-warning = 您发送消息太快了。接下来几秒我会忽略新消息。
secret-pasted = ⚠️ 这看起来像钱包私钥或助记词，我已将其删除。切勿与任何人分享，包括机器人。请视该钱包为已泄露：把资金转移到新钱包。
language-en = English
language-ru = Русский
language-zh = 中文
resource-energy = 能量
resource-bandwidth = 带宽
# An amount of a resource: $volume as the language writes the number, $count the same number (for
# the plural forms), $resource "energy", "bandwidth" or "other", $word the marketplace's own name for another.
resource-amount = { $volume } { $resource ->
    [energy] 能量
    [bandwidth] { $count ->
       *[other] 带宽
    }
   *[other] { $word }
  }
state-on = 开
state-off = 关

## Start and help
start-welcome = 👋 欢迎，{ $name }！我可以在市场上为您购买 TRON 能量和带宽，运行自动化规则并推送提醒。
start-language = 语言：{ $language }（可在 /settings 中更改）
start-linked = 🔗 已绑定 API 密钥：…<code>{ $last4 }</code>
start-linked-broken = ⚠️ 您的 API 密钥 …<code>{ $last4 }</code> 已失效。请用 /connect 绑定新密钥。
start-not-linked = 尚未绑定 API 密钥。发送 /connect 进行绑定；/quote 无需密钥即可使用。
start-sandbox = 🧪 sandbox：不涉及真实 TRX。本机器人连接的是沙盒市场。
help-title = <b>命令</b>
help-arguments = 参数可省略：省略时我会逐步询问。数量：65000、65k、1.5m；时长按市场列出的写法（15m、1h、1d，或 15 分钟、1 小时、1 天）。
help-key-argument = &lt;API 密钥&gt;
menu-quote = 💱 报价
menu-buy = ⚡ 购买
menu-orders = 📦 订单
menu-rules = 🤖 规则
menu-wallet = 👛 钱包
menu-notifications = 🔔 通知
menu-settings = ⚙️ 设置
menu-watches = 👀 价格监控
menu-stats = 📊 统计
menu-webhook = 🪝 Webhook
cancel-done = 已取消，未做任何更改。
cancel-nothing = 没有可取消的操作。
command-start = 欢迎信息、绑定状态和主菜单
command-help = 所有命令及一句话说明
command-connect = 绑定您的市场 API 密钥
command-disconnect = 删除您的密钥和已存储的数据
command-quote = 公开报价（无需密钥）
command-buy = 为地址购买能量或带宽
command-orders = 您的订单（最新在前）及统计
command-addresses = 您最近使用的地址
command-rules = 自动化规则：暂停、恢复、取消
command-refill = 创建自动补充规则
command-renewal = 创建每日自动续租规则
command-smart = 创建智能模式规则
command-newrule = 按引导创建规则
command-wallet = TRX 和 USDT 余额
command-topup = 充值地址和二维码
command-transactions = 余额流水
command-notifications = 市场通知
command-webhook = 用于订单提醒的个人 webhook URL
command-settings = 语言和推送提醒
command-group = 团队提醒：把您的提醒复制到群组
command-group-here = 哪些成员的提醒会发到本群
command-cancel = 退出任何引导流程

## Buttons
button-confirm = ✅ 确认
button-cancel = ✖️ 取消
button-connect = 🔗 绑定密钥
button-try-again = 🔁 重试
button-topup = 💳 充值
button-buy-this = ⚡ 购买此项
button-refresh = 🔄 刷新
button-auto-resume = 🔁 自动恢复：{ $value }
button-copy = 复制
button-rotate = ♻️ 更换
button-resume = ▶️ 恢复
button-prev = ◀️ 上一页
button-next = 下一页 ▶️
button-back = ⬅️ 返回
button-stats = 📊 统计

## Linking
connect-ask = 请在下一条消息中发送您的市场 API 密钥。我会立即删除该消息，验证密钥并加密保存。发送 /cancel 停止。
connect-replaces = 您已绑定密钥 …<code>{ $last4 }</code>；新密钥将替换它。
connect-linked = ✅ 密钥 …<code>{ $last4 }</code> 已绑定。
connect-replaced = ✅ 密钥 …<code>{ $last4 }</code> 已绑定，并替换了您之前的密钥。
connect-rejected = ❌ 市场未接受该密钥，未保存任何内容。请检查密钥是否完整复制，以及是否已被撤销。
connect-unreachable = ❌ 无法连接市场验证密钥，未保存任何内容。请一分钟后重试。
connect-bad-shape = ❌ 这看起来不像 API 密钥（8–256 个字符，不含空格）。未保存任何内容。
connect-edited = 我已删除这条编辑过的消息，因为它可能包含 API 密钥。编辑后的消息不会被读取：请重新发送 /connect，并在新消息中粘贴密钥。
connect-too-many = 绑定密钥的尝试次数过多。请一小时后再试。
connect-needed = 此操作需要绑定市场 API 密钥。请用 /connect 绑定。
key-broken = ⚠️ 您的 API 密钥 …<code>{ $last4 }</code> 已失效（被市场拒绝）。请用 /connect 绑定新密钥。
key-broken-now = ⚠️ 市场拒绝了您的 API 密钥：它已失效。在您用 /connect 绑定新密钥之前，提醒将暂停。
key-relink = ⚠️ 无法再读取您保存的密钥。请用 /connect 重新绑定。
balance-line = 余额：<b>{ $trx } TRX</b> · <b>{ $usdt } USDT</b>
disconnect-ask = 删除密钥 …<code>{ $last4 }</code> 以及为您存储的所有数据（地址、自动购买、价格监控、待确认操作、排队中的提醒）？自动购买将被删除，不会再购买任何东西。
disconnect-done = 完成。您的密钥和存储的数据已删除。可随时用 /connect 重新绑定。
disconnect-kept = 未做任何更改。
disconnect-nothing = 未绑定密钥，没有可删除的内容。

## Settings and webhook
settings-title = <b>设置</b>
settings-toast-changed = 您的设置已在别处更改：这是当前的设置。未做任何更改。
settings-language = 语言：{ $language }
settings-alerts = 推送提醒（点击切换）：
alerts-orders = 订单结算
alerts-rules = 规则暂停
alerts-deposits = 充值到账
alerts-other = 其他通知
webhook-title = <b>您的个人 webhook URL</b>
webhook-how = 在市场控制台（Webhooks，需要完整权限的密钥）中为事件 <code>order.filled</code> 和 <code>order.failed</code> 注册此 URL。请妥善保密：任何拥有它的人都能向您发送提醒。它仅显示这一次；点击“更换”可生成新的 URL。
webhook-how-playground = 在演练场中，此 URL 指向本服务器，沙盒可以访问它：在侧边栏点击“Register my /webhook URL”，结算的订单就会以市场的 <code>order.filled</code> 和 <code>order.failed</code> webhook 发到这里。请妥善保密：任何拥有它的人都能向您发送提醒。点击“更换”可生成新的 URL。
webhook-exists = 您已有个人 webhook URL。它仅在创建时显示；点击“更换”获取新的 URL（旧的会立即失效）。
webhook-rotated = ♻️ 已生成新 URL；旧 URL 已失效。
webhook-no-public-url = 个人 webhook 需要机器人的公网地址。运营者需先设置 <code>PUBLIC_URL</code>。在此之前，订单提醒仍通过轮询送达。

## Input
ask-resource = 选择哪种资源？
ask-volume = 需要多少{ $resource }？输入数字（65000、65k、1.5m）或点击预设。
ask-volume-short = 需要多少{ $resource }？
ask-duration = 租用多长时间？
ask-address = 由哪个地址接收？请发送 TRON 地址（T…）。
ask-address-short = 由哪个地址接收？
ask-cancel-hint = <i>发送 /cancel 停止</i>
bounds-line = 允许范围：{ $min } – { $max }。
preset-65k = 65,000：接收方已持有 USDT。
preset-131k = 131,000：新接收方（尚未持有 USDT）。
energy-sender-hint = ℹ️ 能量应给到<b>转出</b> USDT 的地址。
input-resource-bad = 请选择能量（energy）或带宽（bandwidth）。
input-volume-format = 无法识别该数量。可接受的格式：65000、65,000、65 000、65k、1.5m。
input-volume-zero = 数量必须大于零。
input-volume-negative = 数量不能为负数。
input-volume-fraction = 数量必须是整数单位（1.5k 可以，1.0005k 不行）。
input-volume-bounds = 数量超出范围。允许范围：{ $min } – { $max }。
input-duration-bad = 请从以下时长中选择：{ $durations }。
input-address-format = 这不是 TRON 地址。TRON 地址以 T 开头，共 34 个字符。
input-address-checksum = 该地址校验和错误，可能有笔误。请重新复制。
input-argument-bad = 无法识别“<code>{ $value }</code>”。数量可写作 65000、65,000、65 000、65k 或 1.5m。示例：<code>{ $usage }</code>

## Quote and buy
addresses-title = <b>您的地址</b>（最近使用的在前）。✏️ 设置标签，🗑 删除地址。
addresses-empty = 地址簿为空。您购买时使用的地址会保存在这里。
address-label-ask = 请发送 { $address } 的标签（最多 { $max } 个字符），或发送 - 删除其标签。
address-label-bad = 标签长度须为 1 到 { $max } 个字符。请重新发送，或发送 - 删除标签。
address-label-gone = 该地址已不在您的地址簿中。未做任何更改。
address-label-saved = ✅ 标签已保存。
address-label-cleared = ✅ 标签已删除。
quote-title = <b>报价</b>
quote-line = { $amount }，时长 { $duration }
quote-price = 价格：<b>{ $price }</b>（每单位 { $perUnit } sun）
quote-note = <i>公开价格不含佣金；订单预览会显示准确总额。</i>
card-order-title = <b>确认您的订单</b>
card-resource = 资源：{ $value }
card-volume = 数量：{ $value }
card-duration = 时长：{ $value }
card-target = 接收地址：{ $value }
card-price = 价格：{ $price }（佣金 { $commission }）
card-activation = 激活费：{ $value }（该地址尚未激活）
card-savings = 相比燃烧节省：{ $percent }%（燃烧需花费 { $burn }）
card-total = <b>总计：{ $value }</b>
card-balance = 余额：{ $value }
card-short = ⚠️ 您的余额还差 { $value }。请先充值。
card-address-from-link = ⚠️ 此地址来自链接：确认前请核对此地址。您此前未在这里使用过它，而任何人都可以发布带有他人地址的链接。
card-working = ⏳ 处理中…
card-checking = ⏳ 处理中… 市场未及时响应，正在核实操作是否已完成。
card-stale = 此预览已超过 5 分钟，价格可能已变动。请先刷新再确认。
card-price-rose = 自此卡片生成后价格已上涨：现在总计 <b>{ $now }</b>，卡片显示为 { $was }。未扣除任何费用。请刷新以获取新价格的卡片。
card-refreshed = 此卡片已被下方的新预览取代。
card-cancelled = ✖️ 已取消，未扣费。
card-cancelled-order-unknown = ✖️ 已取消。之前的尝试可能已经下单：再次购买前请先查看 /orders。
card-cancelled-rule-none = ✖️ 已取消。您的列表中没有来自此卡片的规则；如果之后出现，请在 /rules 中取消它。
card-cancelled-rule-unknown = ✖️ 已取消。之前的尝试可能已经创建了规则：请查看 /rules。
card-cancelled-rule-exists = 之前的尝试确实创建了此规则，因此这里没有可取消的内容。要停止它，请点击“取消规则”。
card-cancelled-toast = 此卡片已取消。
card-expired = 此确认已失效。
card-already-done = 已完成：不会重复扣费。
card-processing = 正在处理…
card-locked = 此确认已发送至市场，无法再更改。
card-no-key = 已没有可用的 API 密钥，未执行任何操作。
card-unknown-state = ⚠️ 无法向市场确认结果。点击“确认”再次检查：同一确认绝不会重复扣费。
card-attempt-expired = ⚠️ 此卡片之前的确认未能得到确认，您的订单列表中也没有相符的订单。那已是 24 小时以前，因此我不会再次发送（市场可能已不再识别它，可能会重复扣费）。请查看 /orders，或点击刷新获取新的预览。
order-placed = ✅ 订单已提交：{ $status }，等待交付。
order-charged = 已扣除：{ $value }
order-charged-more = ⚠️ 这比确认卡片上显示的金额（{ $shown }）多。请查看 /orders 和 /wallet，如有错误请联系市场。
order-id-line = 订单 { $id }
order-placed-followup = 交付后我会通知您。
orders-title = <b>您的订单</b>（第 { $page }/{ $pages } 页，共 { $total } 个）
orders-empty = 暂无订单。使用 /buy 购买能量。
orders-line = { $status } · { $amount } · { $total }
orders-stats = <b>订单统计</b>
    订单总数：{ $total }
    本月已交付能量：{ $energy }
order-card-title = <b>订单</b> { $id }
order-card-status = 状态：{ $value }
order-card-price = 价格：{ $value }
order-card-activation = 激活：{ $value }
order-card-tx = 交易：{ $value }
order-card-created = 创建时间：{ $value }
# An order's status: $status the marketplace's word in lower-case letters only, $word the word as it wrote it.
order-status = { $status ->
    [created] 已创建
    [pending] 处理中
    [filled] 已完成
    [failed] 失败
    [cancelled] 已取消
    [canceled] 已取消
    [refunded] 已退款
    [expired] 已过期
   *[other] { $word }
  }

## Errors from the marketplace
error-insufficient-balance = ❌ 余额中的 TRX 不足。请充值后重试。
error-scope = ❌ 此 API 密钥为只读。请在控制台创建具有购买权限的密钥，并用 /connect 绑定。
error-forbidden = ❌ 市场不允许用您的 API 密钥执行此操作：{ $detail }
error-spend-limit = ❌ 此 API 密钥已达每日消费上限。上限于 UTC 00:00 重置，也可在控制台中提高。
error-provider-failed = ❌ 供应方当即拒绝了此订单：订单未创建，也未扣除任何费用。点击“重试”可获得新的确认卡片。
error-rejected = ❌ 市场拒绝了请求：{ $detail }
error-not-found = ❌ 未找到：可能已被删除。
error-conflict = ❌ 目前无法执行：{ $detail }
error-rate-limited = ⏳ 市场繁忙。请几秒后重试。
error-unavailable = ⚠️ 市场暂时没有响应。请一分钟后重试。

## Alerts
alert-order-filled = ✅ 订单 <code>{ $id }</code> 已完成。
alert-delivered = 已交付 { $amount }
alert-target = 接收地址：{ $value }
alert-total = 已支付：{ $value }
alert-tx = 交易：{ $link }
alert-filled-hint = 租期结束前，此地址发出的交易（例如 USDT 转账）将使用代理的资源，而不是燃烧 TRX。
tx-sandbox = 沙盒交易
alert-order-failed = ❌ 订单 <code>{ $id }</code> 失败。
alert-refunded = TRX 已退回您的余额。
alert-refunded-amount = { $value } 已退回您的余额。
alert-rule-paused = ⏸ 规则 <code>{ $id }</code> 已被市场暂停。
alert-rule-paused-unknown = ⏸ 您的一条规则已被市场暂停。
alert-pause-why = 原因：余额不足以支付下一次交付。
alert-pause-why-both = 原因：余额不足。市场看到的余额为 { $balance }；下一次交付需要 { $cost }。
alert-pause-why-cost = 原因：余额不足。下一次交付需要 { $cost }。
alert-pause-why-balance = 原因：余额不足。市场看到的余额为 { $balance }。
alert-group-details = 详情（包括金额）在所有者的私聊中。
alert-rules-hint = 打开 /rules 查看是哪一条并恢复它。
alert-key-broken = ⚠️ 市场拒绝了您的 API 密钥 …<code>{ $last4 }</code>：它已失效。通知和订单提醒已暂停，请用 /connect 绑定新的密钥。

## Wallet
wallet-title = <b>👛 钱包</b>
wallet-trx = TRX：<b>{ $value } TRX</b>
wallet-usdt = USDT-TRC20：<b>{ $value } USDT</b>
wallet-hint = 购买费用从 TRX 余额中支付。充值即可增加资金。
wallet-refreshed = 余额已刷新
button-transactions = 📜 流水
topup-title = <b>💳 为余额充值</b>
topup-address-too-long = ⚠️ 市场给出的充值地址长达 { $length } 个字符，无法在这里安全显示。请在市场的控制台中获取充值地址。
topup-address = 您的充值地址（点击复制）：
topup-network = 网络：<b>{ $network }</b>
topup-minimums = 最低充值金额：
topup-minimum-line = • { $currency }：<b>{ $amount }</b>
topup-no-minimums = 最低充值金额：市场未提供。
topup-warning = ⚠️ 请仅通过 TRON 网络（{ $network }）向此地址发送 { $currencies }。其他代币，或通过其他网络的转账，将永久丢失。
topup-credited = 充值在网络确认后到账；请查看 /wallet 和 /transactions。
topup-caption = 您的 { $network } 充值地址二维码：
button-copy-address = 复制地址
transactions-title = <b>📜 流水</b>（第 { $page }/{ $pages } 页，共 { $total } 条）
transactions-filter = 筛选：{ $value }
transactions-toast-changed = 有新的交易：这是此页的当前内容。未做任何更改。
transactions-line = { $time } · { $type } · <b>{ $amount } { $currency }</b> · { $status }
transactions-empty = 暂无流水。使用 /topup 充值：您的充值、订单付款和退款都会显示在这里。
transactions-empty-filtered = 没有符合此筛选条件的流水。点击“全部”查看所有记录。
transactions-all-currencies = 全部币种
transactions-all-types = 全部类型
# A ledger entry's type and status: $type or $status the marketplace's word in lower-case letters only, $word as it wrote it.
ledger-type = { $type ->
    [deposit] 充值
    [orderpayment] 订单付款
    [orderrefund] 订单退款
    [automationcharge] 规则交付扣费
    [adjustment] 余额调整
    [withdrawal] 提现
    [refund] 退款
   *[other] { $word }
  }
ledger-status = { $status ->
    [completed] 已完成
    [pending] 处理中
    [failed] 失败
    [cancelled] 已取消
    [canceled] 已取消
   *[other] { $word }
  }
notifications-title = <b>🔔 通知</b> · { $unread } 条未读（第 { $page }/{ $pages } 页，共 { $total } 条）
notifications-empty = 暂无通知。订单结算、充值到账或规则暂停时，市场会在这里发布通知。
notifications-link = 🔗 <a href="{ $url }">打开链接</a>
notifications-legend = 🔵 未读 · ⚪ 已读
button-mark-read = ✔️ 标为已读 { $n }
button-mark-all-read = ✅ 全部标为已读
notifications-marked = 已标为已读
notifications-all-marked = 已全部标为已读
notifications-quoted = 市场原文：
# Marketplace notifications of a kind the bot knows, in the reader's words (the facts read from the marketplace's text).
notice-quoted = 💬 市场原文：
notice-order-filled = ✅ 订单已完成
notice-order-failed = ❌ 订单失败
notice-deposit = 💰 充值已到账
notice-rule-paused = ⏸ 规则已暂停
notice-rule-resumed = ▶️ 规则已恢复
notice-rule-skipped = ⏭ 规则的一次交付已跳过
notice-delivered = 已交付：{ $amount }
notice-delivered-for = 已交付：{ $amount }，时长 { $duration }
notice-ordered = 订购：{ $amount }
notice-ordered-for = 订购：{ $amount }，时长 { $duration }
notice-deposit-amount = { $amount } 已存入您的余额。
notice-rule = { $kind }规则，地址 { $address }
notice-rule-unnamed = 地址 { $address } 的规则
notice-rule-resumed-why = 充值后它已自动恢复。
notice-rule-skipped-why = 这次交付会超出创建该规则的密钥的每日消费上限。规则仍然有效。
notice-cost = 这次交付需要 { $value }。

## Rules
button-pause = ⏸ 暂停
button-cancel-rule = 🗑 取消规则
button-deliveries = 📋 交付记录
button-new-rule = ➕ 新建规则
button-yes = 是
button-no = 否
rule-kind-refill = 自动补充
rule-kind-renewal = 自动续租
rule-kind-smart = 智能模式
rule-status-active = 生效中
rule-status-paused = 已暂停
rule-status-cancelled = 已取消
rules-title = <b>您的自动化规则</b>（第 { $page }/{ $pages } 页，共 { $total } 条）
rules-empty = 您还没有自动化规则。可使用 /refill、/renewal、/smart 或引导式的 /newrule 创建。
rules-hint = 点击规则即可打开。
rules-line = { $kind } · { $target } · { $status }
rule-card-title = <b>{ $kind }</b>规则 { $id }
rule-card-target = 接收地址：{ $value }
rule-card-minimal = 低于此值时补充：{ $value } 能量
rule-card-volume = 数量：{ $value } 能量
rule-card-volume-smart = 数量：每次交付约 131,000 能量（由供应方决定）
rule-card-duration = 时长：{ $value }
rule-card-status = 状态：<b>{ $value }</b>
rule-card-paused-user = 暂停原因：您暂停了它。在您点击“恢复”之前，它会一直保持暂停。
rule-card-paused-system = 暂停原因：市场暂停了它，因为 TRX 余额不足以支付下一次交付。
rule-card-paused-system-auto = 充值后它会自动恢复。
rule-card-paused-system-manual = 它不会自动恢复：请先充值，再点击“恢复”。
rule-card-paused-other = 暂停原因：{ $value }
rule-card-auto-resume = 充值后自动恢复：{ $value }
rule-card-spent = 已花费 TRX：{ $value }
rule-card-created = 创建时间：{ $value }
rule-card-updated = 更新时间：{ $value }
rule-card-cancelled = 此规则已永久取消。如需重新开始，请创建新规则。
rule-cancel-ask = ⚠️ 取消此规则？取消后无法撤销：已取消的规则不能恢复，只能重新创建。
rule-toast-paused = 已暂停。
rule-toast-resumed = 已恢复。
rule-toast-cancelled = 规则已取消。
rule-toast-changed = 此规则已在别处被更改：这是它的当前状态。未执行任何操作。
rules-toast-changed = 规则已在别处更改：这是当前的列表。未执行任何操作。
rule-toast-not-found = 此规则已不存在：列表已刷新。
rule-toast-failed = 市场拒绝了此操作：请查看消息。
rule-resume-short = ⚠️ TRX 不足，无法恢复：余额需足够支付下一次交付。请先充值，再点击“恢复”。
deliveries-title = 规则 { $id } 的<b>交付记录</b>：{ $count }
deliveries-empty = 暂无交付记录。规则每次触发时，交付的时间、数量和价格都会显示在这里。
deliveries-line = { $time } · { $volume } · { $duration } · { $trx }
deliveries-more = … 另有 { $count } 条较早的记录未显示。
newrule-ask-kind = 选择哪种规则？
    • <b>自动补充</b>：当地址的能量低于阈值时，交付固定数量的能量。
    • <b>自动续租</b>：每天续租一次固定数量的能量，无论剩余多少。
    • <b>智能模式</b>：由供应方决定何时交付；每次交付约 131,000 能量。
newrule-kind-bad = 请用按钮选择规则类型：自动补充、自动续租或智能模式。
ask-rule-address = 规则要照看哪个地址？请发送 TRON 地址（T…）。
ask-rule-minimal = 地址能量低于多少时补充？输入数字（65000、65k）。
ask-rule-volume = 每次交付多少能量？输入数字（65000、65k、1.5m）或点击预设。
ask-rule-renewal-volume = 每天续租多少能量？输入数字（65000、65k、1.5m）或点击预设。
ask-rule-duration = 每次交付的时长是多少？
ask-auto-resume = 如果规则因余额不足而暂停，充值后是否自动恢复？（默认：否）
input-yes-no = 请回答“是”或“否”。
input-minimal-bad = 阈值必须是大于零的整数，例如 65000 或 65k。
rule-confirm-title = <b>确认新规则</b>
rule-confirm-kind = 类型：{ $value }
rule-confirm-trigger-refill = 触发条件：每当地址能量低于 { $minimal } 时，交付 { $volume } 能量，时长 { $duration }。
rule-confirm-trigger-renewal = 触发条件：每天一次，将 { $volume } 能量续租一天，无论剩余多少。
rule-confirm-trigger-smart = 触发条件：由供应方判断地址何时需要能量；每次交付约 131,000 能量，时长 1 小时。
rule-confirm-cost = 每次触发的费用：<b>{ $value }</b>（佣金 { $commission }）
rule-confirm-cost-estimate = 每次触发的费用（估算）：<b>{ $value }</b>（佣金 { $commission }）
rule-confirm-estimate-priced-for = 市场未提供一天的时长，因此此估算按 { $duration } 计价；每日续期的费用可能更高。
rule-confirm-charged = 每次触发都从您的 TRX 余额扣费；没有预付预算。您可以随时在 /rules 中暂停或取消规则。
rule-confirm-short = ⚠️ 您的余额不足以支付一次触发。请先充值。
rule-confirm-short-refill = ⚠️ 您的余额暂不足以支付一次触发：规则会在首次触发时暂停，直到您充值。
rule-created = ✅ 规则已创建。

## Stats and weekly digest
command-stats = 用图表查看花费，7 天或 30 天
stats-title = 📊 <b>最近 { $days } 天的花费</b>
stats-period = 最近 { $days } 天
stats-range = { $from } – { $to }（{ $zone }）
stats-spent = 花费：<b>{ $trx }</b>
stats-delivered = 本期已交付（您的订单和规则触发）：能量 { $energy } · 带宽 { $bandwidth }
stats-orders = 订单：下单 { $placed } · 完成 { $filled } · 失败 { $failed }
stats-firings = 规则执行：{ $count } 次
stats-saving = 相比燃烧 TRX 节省：≈ { $trx }
stats-saving-how = <i>估算方法：已交付的能量按市场给出的燃烧成本计价（每单位 { $sun } sun，取自当前的订单预览），减去这些能量的实际花费。</i>
stats-saving-unknown = 相比燃烧 TRX 节省：无法显示，市场未提供燃烧成本。
stats-ledger = 流水：扣款 { $charged } · 退款 { $refunded }
stats-marketplace = 市场自己的统计（您的密钥）：{ $count ->
   *[other] 订单总数 { $total }
  } · 本自然月已交付能量 { $energy }
stats-partial = ⚠️ 数据不完整：{ $what }超出了 { $limit } 次请求能读取的范围。
stats-partial-orders = 订单
stats-partial-ledger = 流水记录
stats-partial-firings = 规则执行记录
stats-empty = 这段时间没有任何花费。
stats-chart-title = 每日 TRX 花费
stats-chart-axis = TRX
stats-source-orders = 一次性订单
stats-source-others = 其他规则
button-days-7 = 7 天
button-days-30 = 30 天
digest-title = 📬 <b>每周摘要</b>：上周的花费
digest-period = 上周
digest-footer = 可在 /settings 中关闭摘要或更改时区。
settings-digest = 每周摘要：{ $state }
settings-digest-when = 每周一 09:00 发送，{ $zone }。时区（点击选择）：
button-digest = 📬 每周摘要：{ $state }

## Price watches, inline mode and deep links
command-watch = 价格监控：租用价格不高于设定的 TRX 时提醒
command-watches = 您的价格监控：暂停、恢复、删除
alerts-prices = 价格监控
button-buy-now = 🛒 立即购买
button-delete = 🗑 删除
button-watches = 📋 全部监控
button-watch-open = ⚙️ { $n }
button-watch-pause = ⏸ 暂停 { $n }
button-watch-resume = ▶️ 恢复 { $n }
button-watch-delete = 🗑 删除 { $n }
button-watch-rearm-above = 🔁 价格回升到阈值之上后再提醒
button-watch-rearm-cooldown = 🔁 冷却结束后再提醒
button-buy-in-bot = ⚡ 在机器人中购买
watch-card-title = 👁 <b>价格监控</b> <code>{ $id }</code>
watch-target = { $amount }，{ $duration }
watch-address = 地址：{ $value }
watch-threshold = 价格不高于 <b>{ $threshold }</b> 时提醒
watch-price-now = 当前价格：{ $price }（{ $time }）
watch-price-unknown = 当前价格：尚未检查
watch-status = 状态：{ $value }
watch-status-active = 🟢 监控中
watch-status-resting = 💤 提醒后冷却中
watch-status-paused = ⏸ 已暂停
watch-cooldown = 提醒后冷却：{ $value }
watch-cooldown-15m = 15 分钟
watch-cooldown-1h = 1 小时
watch-cooldown-1d = 1 天
watch-rearm-above = 价格回升到阈值之上、再次下降时才会再次提醒。
watch-rearm-cooldown = 冷却结束后，只要价格仍不高于阈值就会再次提醒。
watch-created = ✅ 开始监控。公开价格达到您的阈值时会提醒您。
watch-created-own = ✅ 开始监控。当您自己的订单（含佣金）不高于您的阈值时会提醒您。
watch-updated = ✅ 您已在监控这项租用：阈值已更新，监控已启用。
watch-already-below = ℹ️ 价格已经不高于您的阈值：下次检查时就会提醒。
watch-limit = 您已有 { $max } 个价格监控，已达上限。请先在 /watches 中删除一个。
watch-deleted = 🗑 监控 <code>{ $id }</code> 已删除。
watch-gone = 此监控已不存在。
watch-link-ask = 🔗 一个链接请求保存此价格监控：
watch-link-hint = 在您点击「确认」之前不会保存任何内容。
watch-link-cancelled = ✖️ 已取消。未保存任何监控。
watches-toast-changed = 监控在此期间已更改：这是当前状态。
watches-title = <b>您的价格监控</b>（{ $count } / { $max }）
watches-last = 当前 { $price }
watches-empty = 您还没有价格监控。示例：<code>/watch energy 65k 1h 2.5</code> 会在 65,000 能量租 1 小时不高于 2.5 TRX 时提醒您。
ask-watch-price = 价格不高于多少 TRX 时提醒您？当前价格：{ $price }。输入金额（2.5）或点按按钮。
input-watch-price-format = 无法识别该 TRX 金额。请写成 2.5 或 2.5 TRX（用小数点，不用逗号）。
input-watch-price-zero = 价格上限必须大于零。
input-watch-price-precision = TRX 最多 6 位小数（0.000001）。
input-watch-price-high = 这个上限远高于任何租用价格，请检查数字。
alert-watch-reached = 💹 价格监控 <code>{ $id }</code>：价格已达到您的阈值。
alert-watch-target = { $amount }，{ $duration }
alert-watch-price = 价格：<b>{ $price }</b>（您的阈值：{ $threshold }）
alert-watch-total = 您的订单总计 <b>{ $total }</b>（您的阈值：{ $threshold }）
alert-watch-public = 这是公开价格，不含市场佣金：您自己的订单会略贵一些。
alert-watch-public-connect = 用 /connect 绑定密钥后，监控将比较您自己订单的总价。
alert-watch-at = 时间：{ $time }
alert-watch-hint = “立即购买”会打开带最新价格的确认卡片：在您确认之前不会购买任何东西。此监控现进入冷却。
inline-title = { $target }：{ $price }
inline-description = 每单位 { $perUnit } sun · 实时公开价格
inline-note = <i>实时公开价格，不含佣金。可在 { $bot } 中购买。</i>
inline-help = 输入数量和时长，例如 65k 1h
inline-unpriced = 暂无此项价格：打开机器人
inline-slow-down = 请求过多：请稍等几秒
start-link-bad = ⚠️ 无法读取此链接，因此未打开任何内容。这是开始界面。
share-word = 分享
share-line = 🔗 { $link }：在机器人中打开此内容的链接

# The bot's profile (setMyDescription, setMyShortDescription)
bot-description = 我在市场上为您购买 TRON 能量和带宽：报价、带确认卡片的订单、自动化规则、价格监控，以及订单结算时的即时提醒。使用 /connect 绑定您的市场 API 密钥；/quote 无需密钥即可使用。
bot-short-description = TRON 能量和带宽：报价、购买、自动化和提醒。

## Buy again
button-buy-again = 再次购买
buy-again-no-key = 当前未绑定 API 密钥，因此没有下单。请先用 /connect 绑定密钥，再在 /orders 中对该订单点击“再次购买”。
buy-again-other-key = 此订单由另一个密钥（…<code>{ $then }</code>）下单，而当前绑定的是 …<code>{ $now }</code>，因此没有下单。/orders 列出当前密钥的订单，每个都有“再次购买”。
buy-again-relinked = 此按钮来自密钥 …<code>{ $now }</code> 重新绑定之前，因此没有下单。请打开 /orders，在那里对该订单点击“再次购买”。
buy-again-not-found = 当前绑定的密钥（…<code>{ $now }</code>）看不到此订单，因此没有下单。/orders 列出可以再次购买的订单。

## Dashboard (the Mini App)
command-dashboard = 在一个屏幕上查看余额、规则、订单和花费
button-dashboard = 仪表板
# The menu button beside the message field, opening the dashboard (a few words: Telegram shows it small).
menu-button = 仪表板
dashboard-open = 📊 您的仪表板：余额、规则、最近的订单和花费都在一个屏幕上。点击“仪表板”打开。
dashboard-needs-https = 仪表板是一个 Telegram 小程序，而 Telegram 只从 https 地址打开小程序。请将 <code>PUBLIC_URL</code> 设为此服务器的公开 https 地址（例如 https://bot.example.com）并重启机器人。在此之前，/wallet、/rules、/orders 和 /stats 显示相同的内容。
dashboard-playground = 在演练场中，仪表板在此聊天旁边打开：点击侧边栏中的“Open the dashboard”。
miniapp-title = 仪表板
miniapp-loading = 加载中…
miniapp-balances = 余额
miniapp-unread = 未读通知
miniapp-unread-none = 没有未读通知
miniapp-rules = 规则
miniapp-rules-empty = 还没有自动化规则。在聊天中用 /newrule 创建一个。
miniapp-autobuys = 自动购买
miniapp-autobuys-empty = 还没有自动购买。在聊天中用 /autobuy 创建：仪表盘只能暂停和恢复它们。
miniapp-paused-by-user = 已由您暂停
miniapp-paused-by-system = 已由市场暂停
miniapp-spent = 已花费
miniapp-pause = 暂停
miniapp-resume = 恢复
miniapp-orders = 最近的订单
miniapp-orders-empty = 还没有订单。
miniapp-buy = 在聊天中购买能量
miniapp-buy-again = 再次购买
miniapp-spending = 花费
miniapp-days-7 = 7 天
miniapp-days-30 = 30 天
miniapp-connect-first = 尚未绑定 API 密钥。请在聊天中用 /connect 绑定，然后重新打开仪表板。
miniapp-key-broken = 市场拒绝了您的 API 密钥。请在聊天中用 /connect 绑定新的密钥。
miniapp-unauthorized = 此页面无法确认您的身份：Telegram 的登录数据缺失、被改动或已超过一小时。请关闭它，再从机器人的聊天中重新打开仪表板。
miniapp-no-init-data = 请在 Telegram 中从机器人的聊天打开仪表板：它需要 Telegram 的登录数据才能显示您的账户。
miniapp-retry = 重试
miniapp-failed = 出了点问题，请重试。
miniapp-slow-down = 短时间内请求过多。请等一分钟后再试。
miniapp-rule-busy = 此规则仍在更改中：请等待结果后再试。

## Team alerts
button-choose-group = 选择群组
button-stop-group = 停止群组提醒
button-add-to-group = ➕ 添加到群组
group-intro = 👥 <b>团队提醒</b>：把您的提醒复制到群组，让团队也能看到。私聊提醒照常发送。
    我还不在群组里？点击<b>添加到群组</b>并选中它（您必须是该群的管理员）。
group-choose = 点击下方的<b>选择群组</b>并选中群组（您必须是管理员，我必须是成员）。
group-kind-filled = 订单完成
group-kind-failed = 订单失败
group-kind-paused = 规则暂停
group-kind-prices = 价格监控
group-kind-other = 其他通知
group-card-title = 👥 您的提醒会复制到 <b>{ $title }</b>。
group-card-copied = 复制的提醒：{ $kinds }。
group-card-none = 目前没有复制任何提醒：请在下方开启。
group-card-hint = 点击提醒类型可开启或关闭。副本只说明发生了什么，从不显示您的余额或订单花费（这些只留在此聊天中）；群组中不会出现花钱的按钮，只有您能在群里暂停或恢复您的规则。
group-none-linked = 尚未关联群组。发送 /group 进行选择。
group-stopped = 群组提醒已停止：<b>{ $title }</b> 不会再收到任何提醒。发送 /group 可重新选择群组。
group-refused-bot-missing = 我不是该群组的成员。请把我加入群组，然后通过 /group 重新选择。
group-refused-bot-muted = 我在那个群组里，但无权在那里发送消息。请在群组设置中允许我发送消息，然后通过 /group 重新选择它。
group-refused-not-admin = 您不是该群组的管理员。只有管理员才能把提醒发到那里。
group-check-unanswered = 我检查该群组时 Telegram 没有响应，因此没有绑定任何内容。请稍后通过 /group 再试一次。
group-untitled = 该群组
group-linked = ✅ 已关联：您的提醒将复制到 <b>{ $title }</b>。
group-alert-owner = 👤 <b>{ $name }</b>
group-ended-removed = 👥 我已被移出 <b>{ $title }</b>，您的提醒不再发送到那里。发送 /group 可重新选择群组。
group-ended-not-admin = 👥 您已不再是 <b>{ $title }</b> 的管理员，您的提醒不再发送到那里。发送 /group 可重新选择群组。
group-ended-refused = 👥 Telegram 不再允许我在 <b>{ $title }</b> 发消息，您的提醒不再发送到那里。发送 /group 可重新选择群组。
group-here-title = 👥 以下成员的提醒会发到这里：
group-here-none = 目前没有成员的提醒发到这里。身为管理员的成员可以在私聊中向我发送 /group 进行设置。
group-welcome = 👋 您好！我会把团队成员的提醒复制到这里：订单完成或失败、规则暂停、价格监控。本群的管理员在与我的私聊中发送 /group 即可设置。其他功能请在与我的私聊中使用。
group-here-more = …还有 { $count } 位。
group-not-owner = 只有 { $name } 可以暂停或恢复此规则。
group-not-owner-unnamed = 只有此规则的所有者可以暂停或恢复它。
group-owner-no-key = 所有者的 API 密钥已不再关联。
group-rule-failed = 市场未接受此操作。请在私聊中通过 /rules 重试。
group-rule-resumed = 规则已恢复。
group-rule-paused = 规则已暂停。

## Spend guard and reminders
button-spend = ✅ 是的，支付 { $total }
card-cap-today = 今天通过本机器人：{ $spent } / { $cap } TRX
card-cap-over = ⛔ 加上此订单，今天通过本机器人的购买将达到 { $after }，超过您的每日上限 { $cap }。今天无法确认：上限在 UTC 00:00 重置，或在 /settings 中修改。
card-cap-refused = ⛔ 未下单：今天通过本机器人的购买已达 { $spent }（每日上限 { $cap }），而此订单需要 { $total }。未扣任何费用。上限在 UTC 00:00 重置；可在 /settings 中修改。
card-ask-again-title = <b>确定吗？</b>
card-ask-again-order = { $volume } { $resource }，时长 { $duration }
card-ask-again = 此订单超过了您设置的再次确认金额 { $threshold }（/settings）。点击“{ $button }”下单，或点击取消。
alerts-ends = 租用即将结束
alerts-deliveries = 规则交付
warning-12 = 12 小时
warning-24 = 24 小时
warning-72 = 3 天
warning-0 = 关闭
settings-balance-warning = 余额不足提醒：{ $value }（在下方选择）
settings-guard-title = <b>支出保护</b>
settings-ask-above = 超过此金额再次确认：{ $value }
settings-daily-cap = 通过本机器人的每日上限：{ $value }
settings-daily-cap-set = 通过本机器人的每日上限：{ $value }（今天已用：{ $today }）
button-ask-above = 🛡 再次确认金额…
button-daily-cap = 🛡 每日上限…
button-turn-off = 关闭
guard-ask-title = 再次确认金额
guard-cap-title = 每日上限
guard-ask-question = 请发送一个 TRX 金额：总额超过它的确认卡片会再次确认，按钮上写明金额。当前：{ $value }。
guard-cap-question = 请发送每天（UTC）最多通过本机器人购买的 TRX：卡片会显示今天已买多少，超过上限时不提供确认。密钥在市场的每日限额仍然有效。当前：{ $value }。
guard-amount-off-hint = 发送 <code>关闭</code> 即可关闭。
guard-amount-format = ❌ “{ $input }”不是 TRX 金额。请发送数字，例如 100 或 250.5，或 “关闭”。未做任何更改。
guard-amount-zero = ❌ 金额必须大于 0 TRX。要关闭请发送 “关闭”。未做任何更改。
guard-amount-negative = ❌ 金额不能为负数。请发送大于 0 的数字，或 “关闭”。未做任何更改。
guard-amount-precision = ❌ TRX 最多 6 位小数。未做任何更改。
guard-amount-high = ❌ 超过了此设置允许的最大值 { $max }。未做任何更改。
guard-ask-saved = ✅ 超过 { $value } 时再次确认。总额更高的卡片需要再点一次写明金额的按钮。
guard-ask-off = ✅ 已关闭再次确认：卡片点一次即可确认。
guard-cap-saved = ✅ 通过本机器人的每日上限：每个 UTC 日 { $value }。
guard-cap-off = ✅ 每日上限已关闭。
alert-rental-ends = ⏳ 您的租用将在 { $minutes } 分钟后结束（订单 { $id }）。
alert-rental-what = 租用：{ $volume } { $resource }，时长 { $duration }
alert-rental-at = 结束时间：{ $time }。
alert-rental-hint = “续租”会以今天的价格为同样的租用打开新的确认卡片。
button-renew = 🔁 续租
runway-line = 📉 规则：每天约 { $perDay } TRX；您的余额约可维持{ $lasts }（根据最近 7 天的交付估算）。
runway-days = 约 { $count } 天
runway-hours = 约 { $count } 小时
runway-under-hour = 不到 1 小时
alert-low-balance = ⚠️ 余额不足：剩余 { $balance }。
alert-low-balance-delivery = 它不足以支付规则 { $id } 的下一次交付（{ $cost }）：余额无法支付下一次交付时，市场会暂停该规则。
alert-low-balance-runway = 按每天约 { $perDay } TRX（最近 7 天）计算，您的余额约可维持{ $lasts }：少于您设置的提醒时间 { $warning }。
alert-low-balance-hint = 请充值以保持规则运行。此提醒只发送一次；充值后会重新启用。提醒时间可在 /settings 中设置。
alert-delivered-firing = 📦 规则 { $id }（{ $kind }）已向 { $address } 交付 { $volume } 能量，费用 { $price }。
alert-delivered-when = { $time } · 时长 { $duration }
alert-delivered-time = { $time }
## Auto-buys
command-autobuy = 自动购买：当您的订单总额不高于上限时自动购买租用，并受每日预算限制
command-autobuys = 您的自动购买：暂停、恢复、删除、最近订单
button-stop = ⏹ 停止
button-auto-buy = 🤖 自动购买
button-make-autobuy = 🤖 设为自动购买
button-autobuys = 📋 全部自动购买
button-autobuy-open = ⚙️ { $n }
button-autobuy-pause = ⏸ 暂停 { $n }
button-autobuy-resume = ▶️ 恢复 { $n }
button-autobuy-delete = 🗑 删除 { $n }
button-autobuy-orders = 每日订单：{ $count }
button-autobuy-days = 期限：{ $days } 天
autobuy-rent = { $volume } { $resource }，租期 { $duration }
autobuy-card-title = 🤖 <b>确认自动购买</b>：现在不会购买任何东西
autobuy-card-rent = 租用：{ $rent }
autobuy-card-address = 地址：{ $value }
autobuy-card-max = 每笔订单最多：<b>{ $value }</b>（您自己的订单总额：价格加激活费）
autobuy-card-total-now = 您现在这笔订单的总额：{ $value }
autobuy-card-budget = 每日预算：<b>{ $value }</b>（UTC 日）
autobuy-card-orders = 每日订单：最多 { $count } 笔
autobuy-card-ends = 结束：确认后 { $days } 天（约 { $time }）
autobuy-card-worst = <b>最坏情况：每天 { $day }，总共 { $all }</b>（{ $days } 个 UTC 日）
autobuy-card-balance = 当前余额：{ $value }
autobuy-card-one-rental = 每个地址同一时间只有一笔租用：它为该地址下的订单仍在租期内时，不会再下新订单。
autobuy-card-under-now = ℹ️ 您的总额已不高于上限：下一次价格检查时可能就会下第一笔订单。
autobuy-card-authorizes = 确认即表示您授权本机器人使用您的 API 密钥下这些订单，不再逐次询问，且仅在以上限制之内。每次购买都会通知您；您可以随时在 /autobuys 或 /settings 的“自动购买”开关中暂停或停止。
autobuy-created = ✅ 自动购买 <code>{ $id }</code> 已创建。现在没有购买任何东西。当您的总额不高于上限时它会购买，直到 { $time }。见 /autobuys。
autobuy-limit = 您已有 { $max } 个自动购买，已达上限。请先在 /autobuys 中删除一个。
autobuy-switch-off = ⛔ /settings 中的自动购买已关闭：在您打开之前，无法创建或恢复自动购买。
ask-autobuy-max = 每笔订单最多花多少 TRX？您现在这笔订单的总额是 { $total }（价格加激活费），余额为 { $balance }。输入金额（2.5）或点选一个。
ask-autobuy-max-short = 每笔最多？
ask-autobuy-budget = 每个 UTC 日最多花多少 TRX？不少于每笔订单上限（{ $max }）。输入金额或点选一个。
ask-autobuy-budget-short = 每日预算？
input-autobuy-amount-format = 无法识别这个 TRX 金额。请写成 2.5 或 2.5 TRX（用小数点，不用逗号）。
input-autobuy-amount-zero = 金额必须大于零。
input-autobuy-amount-precision = TRX 最多 6 位小数（0.000001）。
input-autobuy-amount-high = 这个金额远高于任何租用价格，请检查数字。
input-autobuy-max-over-balance = 这超过了您的余额（{ $balance }）：这样的订单无法支付。请选择更低的金额，或先充值。
input-autobuy-budget-under-max = 每日预算必须不少于每笔订单上限（{ $max }），否则一天连一笔订单都放不下。
autobuy-status-active = 🟢 价格合适时购买
autobuy-status-paused = ⏸ 已被您暂停
autobuy-status-paused-switch = ⏸ 已暂停：自动购买已关闭
autobuy-status-waiting = ⏳ 密钥的每日消费限额已满；将于 { $time } 自动恢复
autobuy-status-stopped = ⏹ 已停止：{ $why }
autobuy-status-ended = 🏁 已结束：到达结束日期
autobuy-status-ended-user = 🏁 已被您停止
autobuy-reason-user = 由您停止
autobuy-reason-switch = 自动购买已关闭
autobuy-reason-balance = 余额不足以支付订单
autobuy-reason-scope = API 密钥无购买权限
autobuy-reason-key = API 密钥被拒绝
autobuy-reason-provider = 供应商连续两次失败
autobuy-reason-rejected = 市场拒绝了订单
autobuy-reason-relinked = 已绑定另一个 API 密钥
autobuy-reason-spend-limit = 密钥的每日消费限额
autobuy-reason-ended = 到达结束日期
autobuys-empty = 您还没有自动购买。示例：<code>/autobuy energy 65k 1h T… 3 10</code> 会在您的总额不超过 3 TRX 时为您的地址购买 65,000 能量（1 小时），每天最多 10 TRX。价格监控的卡片上也有“设为自动购买”。
autobuys-title = <b>您的自动购买</b>（{ $count } / { $max }）
autobuys-line = { $rent } → { $address } · ≤ { $max } · 今日剩余 { $left } / { $budget } · 结束于 { $ends }
autobuys-toast-changed = 自动购买已在别处更改：这是它们现在的样子。
autobuy-view-title = 🤖 <b>自动购买</b> <code>{ $id }</code>
autobuy-view-budget = 每日预算：{ $budget }（今日剩余：{ $left }，UTC 日）
autobuy-view-ends = 结束：{ $time }
autobuy-view-price = 当前公开价格：{ $price }（{ $time }）
autobuy-view-price-unknown = 当前公开价格：尚未查看
autobuy-view-status = 状态：{ $value }
autobuy-view-no-orders = 还没有订单。
autobuy-view-orders = 最近订单：
autobuy-view-order = • { $time } · { $total } · 订单 { $id }
autobuy-view-order-refunded = • { $time } · { $total } · 订单 { $id }（失败，已退款）
autobuy-gone = 这个自动购买已不存在。
autobuy-switch-off-toast = /settings 中的自动购买已关闭：请先在那里打开。
autobuy-no-key-toast = 没有可用的 API 密钥：请先用 /connect 绑定。
autobuy-ended-toast = 这个自动购买已结束：用 /autobuy 新建一个。
autobuy-deleted = 🗑 自动购买 <code>{ $id }</code> 已删除。
autobuy-pause-done = 已暂停：恢复之前不会购买。
autobuy-resume-done = 已恢复：价格合适时会再次购买。
autobuy-stop-done = 已永久停止：不会再购买。
alert-autobought = 🤖 <b>已自动购买</b>（Auto-bought）<code>{ $id }</code>：{ $rent }
alert-autobought-target = 地址：{ $value }
alert-autobought-total = 总额：<b>{ $total }</b>（您的上限：{ $cap }）
alert-autobought-left = 今日预算剩余：{ $left } / { $budget }（UTC 日）
alert-autobought-hint = 订单结算后，会照常收到完成或失败的提醒。
alert-autobuy-stopped = ⏹ { $count } 个自动购买已停止：{ $names }
alert-autobuy-waiting = ⏸ { $count } 个自动购买暂停至下一个 UTC 日：{ $names }
alert-autobuy-why-balance = 原因：余额不足以支付下一笔订单（402）。
alert-autobuy-do-balance = 怎么做：充值后点“恢复”。
alert-autobuy-why-scope = 原因：您的 API 密钥无权购买（403：缺少 <code>purchase</code> 权限）。
alert-autobuy-do-scope = 怎么做：用 /connect 绑定有购买权限的密钥，然后在 /autobuys 中恢复。
alert-autobuy-why-key = 原因：市场拒绝了您的 API 密钥（401）。
alert-autobuy-do-key = 怎么做：用 /connect 绑定可用的密钥，然后在 /autobuys 中恢复。
alert-autobuy-why-provider = 原因：供应商连续两次失败（502）；这些订单已退款。
alert-autobuy-do-provider = 怎么做：点“恢复”稍后再试。
alert-autobuy-why-rejected = 原因：市场拒绝了订单：{ $detail }
alert-autobuy-do-rejected = 怎么做：在 /autobuys 中查看；如有变化，用 /autobuy 新建一个。
alert-autobuy-why-relinked = 原因：已绑定另一个 API 密钥；用之前的密钥创建的自动购买会停止。
alert-autobuy-do-relinked = 怎么做：在 /autobuys 中恢复，以便用现在的密钥购买。
alert-autobuy-why-ended = 原因：到达结束日期。
alert-autobuy-do-ended = 怎么做：不会再购买；用 /autobuy 新建一个。
alert-autobuy-why-spend-limit = 原因：您的 API 密钥已达每日消费限额（403）。
alert-autobuy-do-spend-limit = 怎么做：无需操作；它会在 UTC 00:00 自动恢复。
connect-autobuys-stopped = ⏹ 您的 { $count } 个自动购买是用之前的密钥创建的，因此已停止。在 /autobuys 中恢复，以便用这个密钥购买。
settings-autobuying = 自动购买：{ $state }
settings-autobuying-on = 自动购买会在其限制内购买。关闭会立即停止所有自动购买。
settings-autobuying-off = 在您打开之前，没有自动购买会购买，也无法创建或恢复。打开后不会自动恢复任何一个。
