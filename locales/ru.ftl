## General
private-only = Бот работает только в личных чатах. Откройте личный чат со мной, чтобы им пользоваться.
error-generic = Что-то пошло не так на нашей стороне. Попробуйте ещё раз. Если ошибка повторяется, сообщите этот код ошибки: <code>{ $id }</code>
unknown-command = Я не знаю команду /{ $command }. Отправьте /help, чтобы увидеть, что я умею.
unknown-command-flow-left = Мой вопрос закрыт, ничего не изменено.
unknown-command-suggest = Вы имели в виду /{ $command }?
unknown-text = Я не понял сообщение. Отправьте /help, чтобы увидеть список команд, или /start, чтобы открыть меню.
button-expired = Эта кнопка больше не действует.
flow-closed = Этот вопрос уже закрыт. Начните заново с команды.
flow-not-this-question = Эта кнопка не отвечает на открытый вопрос. Нажмите кнопку под последним вопросом или напишите ответ.
flow-expired = ⌛ Время ответа на этот вопрос истекло, ничего не изменено. Начните заново: { $command }.
flood-warning = Вы отправляете сообщения слишком быстро. Несколько секунд я буду игнорировать новые.
secret-pasted = ⚠️ Это похоже на приватный ключ или seed-фразу кошелька, поэтому я удалил сообщение. Никогда никому их не передавайте, даже ботам. Считайте этот кошелёк скомпрометированным: переведите средства на новый кошелёк.
language-en = English
language-ru = Русский
language-zh = 中文
resource-energy = Энергия
resource-bandwidth = Пропускная способность
# An amount of a resource: $volume as the language writes the number, $count the same number (for
# the plural forms), $resource "energy", "bandwidth" or "other", $word the marketplace's own name for another.
resource-amount = { $volume } { $resource ->
    [energy] энергии
    [bandwidth] { $count ->
        [one] единица пропускной способности
        [few] единицы пропускной способности
       *[many] единиц пропускной способности
    }
   *[other] { $word }
  }
state-on = вкл
state-off = выкл

## Start and help
start-welcome = 👋 Добро пожаловать, { $name }! Я покупаю для вас энергию и пропускную способность TRON на маркетплейсе, выполняю правила автоматизации и присылаю уведомления.
start-language = Язык: { $language } (сменить можно в /settings)
start-linked = 🔗 Привязан API-ключ: …<code>{ $last4 }</code>
start-linked-broken = ⚠️ Ваш API-ключ …<code>{ $last4 }</code> больше не работает. Привяжите новый через /connect.
start-not-linked = API-ключ ещё не привязан. Отправьте /connect, чтобы привязать его; /quote работает и без ключа.
start-sandbox = 🧪 sandbox: без реальных TRX. Бот подключён к тестовому маркетплейсу.
help-title = <b>Команды</b>
help-arguments = Аргументы необязательны: без них я спрошу всё по шагам. Объём: 65000, 65k, 1.5m; срок — как в списке маркетплейса (15m, 1h, 1d, или 15 мин, 1 ч, 1 дн.).
help-key-argument = &lt;API-ключ&gt;
menu-quote = 💱 Цена
menu-buy = ⚡ Купить
menu-orders = 📦 Заказы
menu-rules = 🤖 Правила
menu-wallet = 👛 Кошелёк
menu-notifications = 🔔 Уведомления
menu-settings = ⚙️ Настройки
menu-watches = 👀 Слежения
menu-stats = 📊 Статистика
menu-webhook = 🪝 Webhook
cancel-done = Отменено. Ничего не изменилось.
cancel-nothing = Отменять нечего.
command-start = приветствие, статус ключа и главное меню
command-help = все команды, по строке на каждую
command-connect = привязать API-ключ маркетплейса
command-disconnect = забыть ключ и сохранённые данные
command-quote = публичная цена (ключ не нужен)
command-buy = купить энергию или пропускную способность для адреса
command-orders = ваши заказы (сначала новые) и статистика
command-addresses = недавно использованные адреса
command-rules = правила автоматизации: пауза, возобновление, отмена
command-refill = создать правило автопополнения
command-renewal = создать правило ежедневного автопродления
command-smart = создать правило умного режима
command-newrule = создать правило пошагово
command-wallet = балансы TRX и USDT
command-topup = адрес для пополнения и QR-код
command-transactions = история операций по балансу
command-notifications = уведомления маркетплейса
command-webhook = ваш личный webhook URL для уведомлений о заказах
command-settings = язык и уведомления
command-group = командные уведомления: копии ваших уведомлений в группу
command-group-here = чьи уведомления приходят в эту группу
command-cancel = выйти из любого пошагового сценария

## Buttons
button-confirm = ✅ Подтвердить
button-cancel = ✖️ Отмена
button-connect = 🔗 Привязать ключ
button-try-again = 🔁 Повторить
button-topup = 💳 Пополнить
button-buy-this = ⚡ Купить это
button-refresh = 🔄 Обновить
button-auto-resume = 🔁 Автовозобновление: { $value }
button-copy = Копировать
button-rotate = ♻️ Сменить
button-resume = ▶️ Возобновить
button-prev = ◀️ Пред.
button-next = След. ▶️
button-back = ⬅️ Назад
button-stats = 📊 Статистика

## Linking
connect-ask = Отправьте следующим сообщением API-ключ маркетплейса. Я сразу удалю это сообщение, проверю ключ и сохраню его в зашифрованном виде. /cancel — отменить.
connect-replaces = У вас уже привязан ключ …<code>{ $last4 }</code>; новый ключ заменит его.
connect-linked = ✅ Ключ …<code>{ $last4 }</code> привязан.
connect-replaced = ✅ Ключ …<code>{ $last4 }</code> привязан. Он заменил ваш прежний ключ.
connect-rejected = ❌ Маркетплейс не принял этот ключ. Ничего не сохранено. Проверьте, что ключ скопирован целиком и не отозван.
connect-unreachable = ❌ Не удалось связаться с маркетплейсом, чтобы проверить ключ. Ничего не сохранено. Попробуйте ещё раз через минуту.
connect-bad-shape = ❌ Это не похоже на API-ключ (8–256 символов, без пробелов). Ничего не сохранено.
connect-edited = Я удалил это отредактированное сообщение: в нём может быть API-ключ. Правки я не читаю: отправьте /connect ещё раз и вставьте ключ новым сообщением.
connect-too-many = Слишком много попыток привязать ключ. Подождите час и попробуйте снова.
connect-needed = Для этого нужен привязанный API-ключ маркетплейса. Привяжите его через /connect.
key-broken = ⚠️ Ваш API-ключ …<code>{ $last4 }</code> больше не работает (маркетплейс его отклонил). Привяжите новый через /connect.
key-broken-now = ⚠️ Маркетплейс отклонил ваш API-ключ: он больше не работает. Уведомления приостановлены, пока вы не привяжете новый через /connect.
key-relink = ⚠️ Сохранённый ключ больше не удаётся прочитать. Привяжите ключ заново через /connect.
balance-line = Баланс: <b>{ $trx } TRX</b> · <b>{ $usdt } USDT</b>
disconnect-ask = Забыть ключ …<code>{ $last4 }</code> и всё, что сохранено для вас (адреса, автопокупки, слежения за ценой, ожидающие подтверждения, уведомления в очереди)? Автопокупки удаляются: больше ничего не будет куплено.
disconnect-done = Готово. Ваш ключ и сохранённые данные удалены. Привязать ключ снова можно в любой момент через /connect.
disconnect-kept = Ничего не изменилось.
disconnect-nothing = Ключ не привязан, так что забывать нечего.

## Settings and webhook
settings-title = <b>Настройки</b>
settings-toast-changed = Настройки изменились в другом месте: вот они в текущем виде. Ничего не изменено.
settings-language = Язык: { $language }
settings-alerts = Уведомления (нажмите, чтобы переключить):
alerts-orders = Заказ исполнен
alerts-rules = Правило на паузе
alerts-deposits = Пополнения
alerts-other = Прочие уведомления
webhook-title = <b>Ваш личный webhook URL</b>
webhook-how = В панели маркетплейса (раздел Webhooks, нужен ключ с полным доступом) зарегистрируйте этот URL для событий <code>order.filled</code> и <code>order.failed</code>. Держите его в секрете: любой, у кого он есть, может слать вам уведомления. Он показан только сейчас; кнопка «Сменить» выдаёт новый.
webhook-how-playground = В песочнице этот URL указывает на этот сервер, до которого песочница дотягивается: нажмите «Register my /webhook URL» на боковой панели, и исполненные заказы будут приходить на него как webhook маркетплейса <code>order.filled</code> и <code>order.failed</code>. Держите его в секрете: любой, у кого он есть, может слать вам уведомления. Кнопка «Сменить» выдаёт новый.
webhook-exists = У вас уже есть личный webhook URL. Он показывается только при создании; нажмите «Сменить», чтобы получить новый (старый сразу перестанет работать).
webhook-rotated = ♻️ Выдан новый URL; старый больше не работает.
webhook-no-public-url = Для личных webhook нужен публичный адрес бота. Сначала оператор должен задать <code>PUBLIC_URL</code>. А пока уведомления о заказах приходят через регулярный опрос.

## Input
ask-resource = Какой ресурс?
ask-volume = { $resource }: какой объём? Введите число (65000, 65k, 1.5m) или выберите вариант.
ask-volume-short = { $resource }: какой объём?
ask-duration = На какой срок?
ask-address = Какой адрес получит ресурс? Отправьте адрес TRON (T…).
ask-address-short = Какой адрес получит ресурс?
ask-cancel-hint = <i>/cancel — отменить</i>
bounds-line = Допустимо: { $min } – { $max }.
preset-65k = 65 000: у получателя уже есть USDT.
preset-131k = 131 000: новый получатель (USDT ещё нет).
energy-sender-hint = ℹ️ Энергию получает адрес, который <b>отправляет</b> USDT.
input-resource-bad = Выберите энергию (energy) или пропускную способность (bandwidth).
input-volume-format = Не удалось разобрать объём. Допустимые форматы: 65000, 65,000, 65 000, 65k, 1.5m.
input-volume-zero = Объём должен быть больше нуля.
input-volume-negative = Объём не может быть отрицательным.
input-volume-fraction = Объём должен быть целым числом единиц (1.5k — можно, 1.0005k — нельзя).
input-volume-bounds = Объём вне допустимых пределов. Допустимо: { $min } – { $max }.
input-duration-bad = Выберите один из сроков: { $durations }.
input-address-format = Это не адрес TRON. Он начинается с T и состоит из 34 символов.
input-address-checksum = У этого адреса неверная контрольная сумма — вероятно, опечатка. Скопируйте его ещё раз.
input-argument-bad = Не удалось разобрать «<code>{ $value }</code>». Объём можно записать так: 65000, 65,000, 65 000, 65k или 1.5m. Пример: <code>{ $usage }</code>

## Quote and buy
addresses-title = <b>Ваши адреса</b> (сначала недавние). ✏️ задаёт метку, 🗑 удаляет адрес.
addresses-empty = Адресная книга пуста. Здесь запоминаются адреса, для которых вы покупаете.
address-label-ask = Пришлите метку для { $address } (до { $max } символов) или -, чтобы убрать метку.
address-label-bad = Метка должна содержать от 1 до { $max } символов. Пришлите другую или -, чтобы убрать метку.
address-label-gone = Этого адреса больше нет в адресной книге. Ничего не изменено.
address-label-saved = ✅ Метка сохранена.
address-label-cleared = ✅ Метка убрана.
quote-title = <b>Цена</b>
quote-line = { $amount } на { $duration }
quote-price = Цена: <b>{ $price }</b> ({ $perUnit } sun за единицу)
quote-note = <i>Публичная цена без комиссии; точную сумму покажет предпросмотр заказа.</i>
card-order-title = <b>Подтвердите заказ</b>
card-resource = Ресурс: { $value }
card-volume = Объём: { $value }
card-duration = Срок: { $value }
card-target = Получатель: { $value }
card-price = Цена: { $price } (комиссия { $commission })
card-activation = Плата за активацию: { $value } (адрес ещё не активирован)
card-savings = Экономия по сравнению со сжиганием: { $percent }% (сжигание обошлось бы в { $burn })
card-total = <b>Итого: { $value }</b>
card-balance = Баланс: { $value }
card-short = ⚠️ На балансе не хватает { $value }. Сначала пополните его.
card-address-from-link = ⚠️ Этот адрес пришёл из ссылки: проверьте этот адрес перед подтверждением. Вы здесь его ещё не использовали, а ссылку может опубликовать кто угодно — с чужим адресом.
card-working = ⏳ Обработка…
card-checking = ⏳ Обработка… маркетплейс не ответил вовремя, проверяю, прошло ли действие.
card-stale = Этому предпросмотру больше 5 минут, а цены меняются. Обновите его перед подтверждением.
card-price-rose = Цена выросла с момента создания карточки: итог теперь <b>{ $now }</b>, в карточке было { $was }. Ничего не списано. Обновите карточку, чтобы увидеть новую цену.
card-refreshed = Эта карточка заменена свежим предпросмотром ниже.
card-cancelled = ✖️ Отменено. Ничего не списано.
card-cancelled-order-unknown = ✖️ Отменено. Предыдущая попытка могла всё же разместить заказ: проверьте /orders, прежде чем покупать снова.
card-cancelled-rule-none = ✖️ Отменено. Правила из этой карточки нет в вашем списке; если оно появится позже, отмените его в /rules.
card-cancelled-rule-unknown = ✖️ Отменено. Предыдущая попытка могла всё же создать правило: проверьте /rules.
card-cancelled-rule-exists = Предыдущая попытка всё же создала это правило, поэтому отменять здесь нечего. Чтобы остановить его, нажмите «Отменить правило».
card-cancelled-toast = Эта карточка отменена.
card-expired = Это подтверждение больше не действует.
card-already-done = Уже выполнено: повторного списания не было.
card-processing = Уже обрабатывается…
card-locked = Это подтверждение уже отправлено маркетплейсу и больше не меняется.
card-no-key = Рабочий API-ключ больше не привязан. Ничего не сделано.
card-unknown-state = ⚠️ Не удалось подтвердить результат у маркетплейса. Нажмите «Подтвердить», чтобы проверить снова: одно и то же подтверждение никогда не списывает дважды.
card-attempt-expired = ⚠️ Предыдущее подтверждение этой карточки не удалось проверить, и подходящего заказа в вашем списке нет. Это было больше 24 часов назад, поэтому я не отправлю его снова (маркетплейс мог его забыть, и возможно повторное списание). Проверьте /orders или нажмите «Обновить» для нового предпросмотра.
order-placed = ✅ Заказ размещён: { $status }, ожидает доставки.
order-charged = Списано: { $value }
order-charged-more = ⚠️ Это больше, чем было на карточке ({ $shown }). Проверьте /orders и /wallet и сообщите маркетплейсу, если это ошибка.
order-id-line = Заказ { $id }
order-placed-followup = Я сообщу, когда он будет доставлен.
orders-title = <b>Ваши заказы</b> (стр. { $page } из { $pages }, всего { $total })
orders-empty = Заказов пока нет. Купите энергию через /buy.
orders-line = { $status } · { $amount } · { $total }
orders-stats = <b>Статистика заказов</b>
    Всего заказов: { $total }
    Энергии доставлено в этом месяце: { $energy }
order-card-title = <b>Заказ</b> { $id }
order-card-status = Статус: { $value }
order-card-price = Цена: { $value }
order-card-activation = Активация: { $value }
order-card-tx = Транзакция: { $value }
order-card-created = Создан: { $value }
# An order's status: $status the marketplace's word in lower-case letters only, $word the word as it wrote it.
order-status = { $status ->
    [created] создан
    [pending] в обработке
    [filled] исполнен
    [failed] не выполнен
    [cancelled] отменён
    [canceled] отменён
    [refunded] деньги возвращены
    [expired] истёк
   *[other] { $word }
  }

## Errors from the marketplace
error-insufficient-balance = ❌ Недостаточно TRX на балансе. Пополните его и попробуйте снова.
error-scope = ❌ Этот API-ключ только для чтения. Создайте в панели ключ с правом покупки (purchase) и привяжите его через /connect.
error-forbidden = ❌ Маркетплейс не разрешил это действие с вашим API-ключом: { $detail }
error-spend-limit = ❌ Достигнут дневной лимит расходов этого API-ключа. Он сбрасывается в 00:00 UTC; также его можно повысить в панели.
error-provider-failed = ❌ Поставщик сразу отклонил заказ: заказ не создан, ничего не списано. «Повторить» откроет новую карточку подтверждения.
error-rejected = ❌ Маркетплейс отклонил запрос: { $detail }
error-not-found = ❌ Не найдено: возможно, это было удалено.
error-conflict = ❌ Сейчас это невозможно: { $detail }
error-rate-limited = ⏳ Маркетплейс перегружен. Попробуйте через несколько секунд.
error-unavailable = ⚠️ Маркетплейс сейчас не отвечает. Попробуйте через минуту.

## Alerts
alert-order-filled = ✅ Заказ <code>{ $id }</code> исполнен.
alert-delivered = Доставлено: { $amount }
alert-target = Получатель: { $value }
alert-total = Оплачено: { $value }
alert-tx = Транзакция: { $link }
alert-filled-hint = До конца аренды транзакции с этого адреса (например, перевод USDT) расходуют делегированный ресурс вместо сжигания TRX.
tx-sandbox = транзакция песочницы
alert-order-failed = ❌ Заказ <code>{ $id }</code> не выполнен.
alert-refunded = TRX возвращены на ваш баланс.
alert-refunded-amount = { $value } возвращено на ваш баланс.
alert-rule-paused = ⏸ Правило <code>{ $id }</code> приостановлено маркетплейсом.
alert-rule-paused-unknown = ⏸ Маркетплейс приостановил одно из ваших правил.
alert-pause-why = Причина: на балансе не хватает средств для следующей доставки.
alert-pause-why-both = Причина: не хватает баланса. Маркетплейс видел { $balance }; следующая доставка стоит { $cost }.
alert-pause-why-cost = Причина: не хватает баланса. Следующая доставка стоит { $cost }.
alert-pause-why-balance = Причина: не хватает баланса. Маркетплейс видел { $balance }.
alert-group-details = Подробности, включая суммы, — в личном чате владельца.
alert-rules-hint = Откройте /rules, чтобы увидеть, какое именно, и возобновить его.
alert-key-broken = ⚠️ Маркетплейс отклонил ваш API-ключ …<code>{ $last4 }</code>: он больше не работает. Оповещения об уведомлениях и заказах приостановлены, пока вы не привяжете новый ключ через /connect.

## Wallet
wallet-title = <b>👛 Кошелёк</b>
wallet-trx = TRX: <b>{ $value } TRX</b>
wallet-usdt = USDT-TRC20: <b>{ $value } USDT</b>
wallet-hint = Покупки оплачиваются с баланса TRX. Пополните его, чтобы добавить средства.
wallet-refreshed = Балансы обновлены
button-transactions = 📜 Операции
topup-title = <b>💳 Пополнение баланса</b>
topup-address-too-long = ⚠️ Маркетплейс выдал адрес для пополнения длиной { $length } символов: здесь его нельзя показать надёжно. Возьмите адрес для пополнения в панели маркетплейса.
topup-address = Ваш адрес для пополнения (нажмите, чтобы скопировать):
topup-network = Сеть: <b>{ $network }</b>
topup-minimums = Минимальный депозит:
topup-minimum-line = • { $currency }: <b>{ $amount }</b>
topup-no-minimums = Минимальный депозит: маркетплейс его не указал.
topup-warning = ⚠️ Отправляйте на этот адрес только { $currencies } и только через сеть TRON ({ $network }). Другой токен или перевод через другую сеть будет потерян безвозвратно.
topup-credited = Депозиты зачисляются после подтверждения в сети; см. /wallet и /transactions.
topup-caption = QR-код вашего адреса для пополнения в сети { $network }:
button-copy-address = Копировать адрес
transactions-title = <b>📜 Операции</b> (стр. { $page } из { $pages }, всего { $total })
transactions-filter = Фильтр: { $value }
transactions-toast-changed = Появились новые операции: вот эта страница в текущем виде. Ничего не изменено.
transactions-line = { $time } · { $type } · <b>{ $amount } { $currency }</b> · { $status }
transactions-empty = Операций пока нет. Пополните баланс через /topup: здесь появятся ваши депозиты, оплаты заказов и возвраты.
transactions-empty-filtered = Нет операций по этому фильтру. Нажмите «Все», чтобы увидеть всё.
transactions-all-currencies = Все валюты
transactions-all-types = Все типы
# A ledger entry's type and status: $type or $status the marketplace's word in lower-case letters only, $word as it wrote it.
ledger-type = { $type ->
    [deposit] Пополнение
    [orderpayment] Оплата заказа
    [orderrefund] Возврат за заказ
    [automationcharge] Доставка по правилу
    [adjustment] Корректировка
    [withdrawal] Вывод
    [refund] Возврат
   *[other] { $word }
  }
ledger-status = { $status ->
    [completed] проведено
    [pending] в обработке
    [failed] не проведено
    [cancelled] отменено
    [canceled] отменено
   *[other] { $word }
  }
notifications-title = <b>🔔 Уведомления</b> · непрочитанных: { $unread } (стр. { $page } из { $pages }, всего { $total })
notifications-empty = Уведомлений пока нет. Маркетплейс пишет сюда, когда заказ исполнен, депозит зачислен или правило приостановлено.
notifications-link = 🔗 <a href="{ $url }">Открыть ссылку</a>
notifications-legend = 🔵 не прочитано · ⚪ прочитано
button-mark-read = ✔️ Прочитано { $n }
button-mark-all-read = ✅ Прочитать все
notifications-marked = Отмечено как прочитанное
notifications-all-marked = Все отмечены как прочитанные
notifications-quoted = словами маркетплейса:
# Marketplace notifications of a kind the bot knows, in the reader's words (the facts read from the marketplace's text).
notice-quoted = 💬 Словами маркетплейса:
notice-order-filled = ✅ Заказ исполнен
notice-order-failed = ❌ Заказ не выполнен
notice-deposit = 💰 Пополнение зачислено
notice-rule-paused = ⏸ Правило приостановлено
notice-rule-resumed = ▶️ Правило возобновлено
notice-rule-skipped = ⏭ Доставка по правилу пропущена
notice-delivered = Доставлено: { $amount }
notice-delivered-for = Доставлено: { $amount } на { $duration }
notice-ordered = Заказано: { $amount }
notice-ordered-for = Заказано: { $amount } на { $duration }
notice-deposit-amount = На ваш баланс зачислено { $amount }.
notice-rule = Правило «{ $kind }» для { $address }
notice-rule-unnamed = Правило для { $address }
notice-rule-resumed-why = Оно возобновилось само после пополнения.
notice-rule-skipped-why = Эта доставка превысила бы дневной лимит расходов ключа, который создал правило. Правило остаётся активным.
notice-cost = Доставка стоит { $value }.

## Rules
button-pause = ⏸ Пауза
button-cancel-rule = 🗑 Отменить правило
button-deliveries = 📋 Доставки
button-new-rule = ➕ Новое правило
button-yes = Да
button-no = Нет
rule-kind-refill = Автопополнение
rule-kind-renewal = Автопродление
rule-kind-smart = Умный режим
rule-status-active = активно
rule-status-paused = на паузе
rule-status-cancelled = отменено
rules-title = <b>Ваши правила автоматизации</b> (стр. { $page } из { $pages }, всего { $total })
rules-empty = У вас пока нет правил автоматизации. Создайте правило через /refill, /renewal, /smart или пошагово через /newrule.
rules-hint = Нажмите на правило, чтобы открыть его.
rules-line = { $kind } · { $target } · { $status }
rule-card-title = Правило <b>{ $kind }</b> { $id }
rule-card-target = Получатель: { $value }
rule-card-minimal = Пополнять, когда меньше: { $value } энергии
rule-card-volume = Объём: { $value } энергии
rule-card-volume-smart = Объём: около 131 000 энергии за доставку (выбирает поставщик)
rule-card-duration = Срок: { $value }
rule-card-status = Статус: <b>{ $value }</b>
rule-card-paused-user = Причина паузы: вы приостановили правило. Оно остаётся на паузе, пока вы не нажмёте «Возобновить».
rule-card-paused-system = Причина паузы: маркетплейс приостановил правило, потому что баланса TRX не хватило на следующую доставку.
rule-card-paused-system-auto = Правило возобновится само после пополнения баланса.
rule-card-paused-system-manual = Само оно не возобновится: пополните баланс, затем нажмите «Возобновить».
rule-card-paused-other = Причина паузы: { $value }
rule-card-auto-resume = Автовозобновление после пополнения: { $value }
rule-card-spent = Потрачено TRX: { $value }
rule-card-created = Создано: { $value }
rule-card-updated = Обновлено: { $value }
rule-card-cancelled = Это правило отменено навсегда. Чтобы начать заново, создайте новое.
rule-cancel-ask = ⚠️ Отменить это правило? Отмена окончательна: отменённое правило нельзя возобновить, придётся создать новое.
rule-toast-paused = Приостановлено.
rule-toast-resumed = Возобновлено.
rule-toast-cancelled = Правило отменено.
rule-toast-changed = Правило изменилось в другом месте: вот его текущее состояние. Ничего не сделано.
rules-toast-changed = Правила изменились в другом месте: вот актуальный список. Ничего не сделано.
rule-toast-not-found = Этого правила больше нет: список обновлён.
rule-toast-failed = Маркетплейс отклонил действие: см. сообщение.
rule-resume-short = ⚠️ Недостаточно TRX для возобновления: баланса должно хватать ещё на одну доставку. Пополните баланс, затем нажмите «Возобновить».
deliveries-title = <b>Доставки</b> по правилу { $id }: { $count }
deliveries-empty = Доставок пока нет. Каждый раз, когда правило срабатывает, здесь появляется доставка с временем, объёмом и ценой.
deliveries-line = { $time } · { $volume } · { $duration } · { $trx }
deliveries-more = … и ещё { $count } более ранних (не показаны).
newrule-ask-kind = Какой тип правила?
    • <b>Автопополнение</b>: когда энергия адреса опускается ниже порога, доставляется фиксированный объём.
    • <b>Автопродление</b>: фиксированный объём энергии продлевается раз в день, сколько бы ни осталось.
    • <b>Умный режим</b>: поставщик сам решает, когда доставлять; каждая доставка — около 131 000 энергии.
newrule-kind-bad = Выберите тип правила кнопкой: автопополнение, автопродление или умный режим.
ask-rule-address = За каким адресом должно следить правило? Отправьте адрес TRON (T…).
ask-rule-minimal = Пополнять, когда энергия адреса опустится ниже какого уровня? Введите число (65000, 65k).
ask-rule-volume = Сколько энергии за одну доставку? Введите число (65000, 65k, 1.5m) или выберите вариант.
ask-rule-renewal-volume = Сколько энергии продлевать каждый день? Введите число (65000, 65k, 1.5m) или выберите вариант.
ask-rule-duration = На какой срок каждая доставка?
ask-auto-resume = Если правило приостановится из-за нехватки баланса, возобновлять его автоматически после пополнения? (по умолчанию: Нет)
input-yes-no = Ответьте «Да» или «Нет».
input-minimal-bad = Порог должен быть целым числом больше нуля, например 65000 или 65k.
rule-confirm-title = <b>Подтвердите новое правило</b>
rule-confirm-kind = Тип: { $value }
rule-confirm-trigger-refill = Когда срабатывает: каждый раз, когда энергия адреса опускается ниже { $minimal }, доставляется { $volume } энергии на { $duration }.
rule-confirm-trigger-renewal = Когда срабатывает: раз в день { $volume } энергии продлевается на сутки, сколько бы ни осталось.
rule-confirm-trigger-smart = Когда срабатывает: поставщик сам решает, когда адресу нужна энергия; каждая доставка — около 131 000 энергии на 1 час.
rule-confirm-cost = Стоимость одного срабатывания: <b>{ $value }</b> (комиссия { $commission })
rule-confirm-cost-estimate = Стоимость одного срабатывания (оценка): <b>{ $value }</b> (комиссия { $commission })
rule-confirm-estimate-priced-for = Маркетплейс не предлагает срок в один день, поэтому оценка рассчитана на { $duration }; ежедневное продление может стоить дороже.
rule-confirm-charged = Каждое срабатывание оплачивается с баланса TRX; предоплаченного бюджета нет. Правило можно приостановить или отменить в любой момент в /rules.
rule-confirm-short = ⚠️ Баланса не хватает на одно срабатывание. Сначала пополните его.
rule-confirm-short-refill = ⚠️ Баланса пока не хватает на одно срабатывание: при первом срабатывании правило встанет на паузу, пока вы не пополните баланс.
rule-created = ✅ Правило создано.

## Stats and weekly digest
command-stats = траты на графике, за 7 или 30 дней
stats-title = 📊 <b>Траты за последние { $days } дн.</b>
stats-period = последние { $days } дн.
stats-range = { $from } – { $to } ({ $zone })
stats-spent = Потрачено: <b>{ $trx }</b>
stats-delivered = Получено за период (ваши заказы и срабатывания правил): { $energy } энергии · { $bandwidth } пропускной способности
stats-orders = Заказы: { $placed } создано · { $filled } выполнено · { $failed } не выполнено
stats-firings = Срабатывания правил: { $count }
stats-saving = Экономия против сжигания TRX: ≈ { $trx }
stats-saving-how = <i>Оценка: полученная энергия по цене сжигания, которую называет маркетплейс ({ $sun } sun за единицу, из предпросмотра заказа сейчас), минус то, во что эта энергия обошлась.</i>
stats-saving-unknown = Экономия против сжигания TRX: не показана, маркетплейс не назвал цену сжигания.
stats-ledger = Журнал: списано { $charged } · возвращено { $refunded }
stats-marketplace = Данные самого маркетплейса по вашему ключу: { $total } { $count ->
    [one] заказ
    [few] заказа
    [many] заказов
   *[other] заказа
  } всего · энергии получено в этом календарном месяце { $energy }
stats-partial = ⚠️ Данные неполные: { $what } больше, чем читают { $limit } запросов.
stats-partial-orders = заказов
stats-partial-ledger = записей журнала
stats-partial-firings = срабатываний правил
stats-empty = За этот период ничего не потрачено.
stats-chart-title = Траты TRX по дням
stats-chart-axis = TRX
stats-source-orders = Разовые заказы
stats-source-others = Другие правила
button-days-7 = 7 дней
button-days-30 = 30 дней
digest-title = 📬 <b>Недельная сводка</b>: траты за прошлую неделю
digest-period = прошлая неделя
digest-footer = Выключить сводку или сменить часовой пояс можно в /settings.
settings-digest = Недельная сводка: { $state }
settings-digest-when = Приходит по понедельникам в 09:00, { $zone }. Часовой пояс (нажмите, чтобы выбрать):
button-digest = 📬 Недельная сводка: { $state }

## Price watches, inline mode and deep links
command-watch = слежение за ценой: оповещение, когда аренда стоит не больше заданных TRX
command-watches = ваши слежения за ценой: пауза, возобновление, удаление
alerts-prices = Слежение за ценой
button-buy-now = 🛒 Купить сейчас
button-delete = 🗑 Удалить
button-watches = 📋 Все слежения
button-watch-open = ⚙️ { $n }
button-watch-pause = ⏸ Пауза { $n }
button-watch-resume = ▶️ Возобновить { $n }
button-watch-delete = 🗑 Удалить { $n }
button-watch-rearm-above = 🔁 Снова, когда цена поднимется выше
button-watch-rearm-cooldown = 🔁 Снова после паузы
button-buy-in-bot = ⚡ Купить в боте
watch-card-title = 👁 <b>Слежение за ценой</b> <code>{ $id }</code>
watch-target = { $amount } на { $duration }
watch-address = Для: { $value }
watch-threshold = Оповестить, когда будет стоить не больше <b>{ $threshold }</b>
watch-price-now = Цена сейчас: { $price } (на { $time })
watch-price-unknown = Цена сейчас: ещё не проверялась
watch-status = Состояние: { $value }
watch-status-active = 🟢 слежу
watch-status-resting = 💤 пауза после оповещения
watch-status-paused = ⏸ на паузе
watch-cooldown = Пауза после оповещения: { $value }
watch-cooldown-15m = 15 мин
watch-cooldown-1h = 1 ч
watch-cooldown-1d = 1 день
watch-rearm-above = Новое оповещение — после того как цена поднимется выше порога и снова опустится.
watch-rearm-cooldown = Новое оповещение — после паузы, пока цена остаётся на пороге или ниже.
watch-created = ✅ Слежу. Оповещение придёт, когда публичная цена дойдёт до вашего порога.
watch-created-own = ✅ Слежу. Оповещение придёт, когда ваш собственный заказ, с комиссией, будет стоить не больше порога.
watch-updated = ✅ Вы уже следили за этой арендой: порог обновлён, слежение активно.
watch-already-below = ℹ️ Цена уже на пороге или ниже: оповещение придёт при следующей проверке.
watch-limit = У вас уже { $max } слежений за ценой — это максимум. Сначала удалите одно в /watches.
watch-deleted = 🗑 Слежение <code>{ $id }</code> удалено.
watch-gone = Этого слежения больше нет.
watch-link-ask = 🔗 Ссылка предлагает сохранить это слежение за ценой:
watch-link-hint = Ничего не сохранится, пока вы не нажмёте «Подтвердить».
watch-link-cancelled = ✖️ Отменено. Слежение не сохранено.
watches-toast-changed = Слежения тем временем изменились: вот они сейчас.
watches-title = <b>Ваши слежения за ценой</b> ({ $count } из { $max })
watches-last = сейчас { $price }
watches-empty = Слежений за ценой пока нет. Пример: <code>/watch energy 65k 1h 2.5</code> оповестит, когда 65 000 энергии на 1 час будут стоить не больше 2.5 TRX.
ask-watch-price = Оповестить, когда цена будет не больше скольких TRX? Сейчас: { $price }. Введите сумму (2.5) или нажмите кнопку.
input-watch-price-format = Не удалось прочитать сумму в TRX. Пишите так: 2.5 или 2.5 TRX (через точку или запятую).
input-watch-price-zero = Порог цены должен быть больше нуля.
input-watch-price-precision = У TRX не больше 6 знаков после точки (0.000001).
input-watch-price-high = Такой порог намного выше любой аренды. Проверьте число.
alert-watch-reached = 💹 Слежение за ценой <code>{ $id }</code>: цена дошла до вашего порога.
alert-watch-target = { $amount } на { $duration }
alert-watch-price = Цена: <b>{ $price }</b> (ваш порог: { $threshold })
alert-watch-total = Ваш заказ обойдётся в <b>{ $total }</b> всего (ваш порог: { $threshold })
alert-watch-public = Это публичная цена, без комиссии маркетплейса: ваш собственный заказ стоит немного дороже.
alert-watch-public-connect = Привяжите ключ через /connect, и слежение будет сравнивать стоимость вашего собственного заказа.
alert-watch-at = Замечено { $time }
alert-watch-hint = «Купить сейчас» откроет карточку подтверждения со свежей ценой: ничего не покупается без вашего подтверждения. Теперь слежение на паузе.
inline-title = { $target }: { $price }
inline-description = { $perUnit } sun за единицу · живая публичная цена
inline-note = <i>Живая публичная цена без комиссии. Купить можно в { $bot }.</i>
inline-help = Введите объём и срок, например 65k 1h
inline-unpriced = Цены на это сейчас нет: откройте бота
inline-slow-down = Слишком много запросов: подождите несколько секунд
start-link-bad = ⚠️ Эту ссылку не удалось прочитать, поэтому ничего не открыто. Вот начальный экран.
share-word = Поделиться
share-line = 🔗 { $link } — ссылка, которая открывает это в боте

# The bot's profile (setMyDescription, setMyShortDescription)
bot-description = Я покупаю энергию и пропускную способность TRON на маркетплейсе: цены, заказы с карточкой подтверждения, правила автоматизации, отслеживание цен и уведомления, как только заказ исполнен. Привяжите API-ключ маркетплейса через /connect; /quote работает и без него.
bot-short-description = Энергия и пропускная способность TRON: цены, покупка, автоматизация и уведомления.

## Buy again
button-buy-again = Купить снова
buy-again-no-key = Сейчас API-ключ не привязан, поэтому ничего не заказано. Привяжите ключ через /connect, затем нажмите «Купить снова» у заказа в /orders.
buy-again-other-key = Этот заказ сделан другим ключом (…<code>{ $then }</code>), а привязан сейчас ключ …<code>{ $now }</code>, поэтому ничего не заказано. В /orders — заказы привязанного ключа, у каждого есть «Купить снова».
buy-again-relinked = Эта кнопка появилась до того, как ключ …<code>{ $now }</code> был привязан заново, поэтому ничего не заказано. Откройте /orders и нажмите «Купить снова» у заказа там.
buy-again-not-found = Привязанный сейчас ключ (…<code>{ $now }</code>) не видит этот заказ, поэтому ничего не заказано. В /orders — заказы, которые можно повторить.

## Dashboard (the Mini App)
command-dashboard = балансы, правила, заказы и траты на одном экране
button-dashboard = Панель
# The menu button beside the message field, opening the dashboard (a few words: Telegram shows it small).
menu-button = Панель
dashboard-open = 📊 Ваша панель: балансы, правила, последние заказы и траты на одном экране. Нажмите «Панель», чтобы открыть её.
dashboard-needs-https = Панель — это мини-приложение Telegram, а Telegram открывает мини-приложения только с адреса https. Укажите в <code>PUBLIC_URL</code> публичный https-адрес этого сервера (например, https://bot.example.com) и перезапустите бота. А пока то же самое показывают /wallet, /rules, /orders и /stats.
dashboard-playground = В песочнице панель открывается рядом с этим чатом: нажмите «Open the dashboard» на боковой панели.
miniapp-title = Панель
miniapp-loading = Загрузка…
miniapp-balances = Балансы
miniapp-unread = Непрочитанные уведомления
miniapp-unread-none = Непрочитанных уведомлений нет
miniapp-rules = Правила
miniapp-rules-empty = Правил автоматизации пока нет. Создайте правило в чате командой /newrule.
miniapp-autobuys = Автопокупки
miniapp-autobuys-empty = Автопокупок пока нет. Создайте автопокупку в чате командой /autobuy: здесь их можно только ставить на паузу и возобновлять.
miniapp-paused-by-user = приостановлено вами
miniapp-paused-by-system = приостановлено маркетплейсом
miniapp-spent = потрачено
miniapp-pause = Пауза
miniapp-resume = Возобновить
miniapp-orders = Последние заказы
miniapp-orders-empty = Заказов пока нет.
miniapp-buy = Купить энергию в чате
miniapp-buy-again = Купить снова
miniapp-spending = Траты
miniapp-days-7 = 7 дней
miniapp-days-30 = 30 дней
miniapp-connect-first = API-ключ не привязан. Привяжите его в чате командой /connect и откройте панель снова.
miniapp-key-broken = Маркетплейс отклонил ваш API-ключ. Привяжите новый в чате командой /connect.
miniapp-unauthorized = Эта страница не смогла подтвердить, кто вы: данные входа от Telegram отсутствуют, изменены или старше часа. Закройте её и откройте панель снова из чата с ботом.
miniapp-no-init-data = Откройте панель из чата с ботом в Telegram: ей нужны данные входа от Telegram, чтобы показать ваш аккаунт.
miniapp-retry = Повторить
miniapp-failed = Что-то пошло не так. Попробуйте ещё раз.
miniapp-slow-down = Слишком много запросов за короткое время. Подождите минуту и попробуйте снова.
miniapp-rule-busy = Это правило ещё меняется: дождитесь ответа и попробуйте снова.

## Team alerts
button-choose-group = Выбрать группу
button-stop-group = Остановить уведомления в группе
button-add-to-group = ➕ Добавить в группу
group-intro = 👥 <b>Командные уведомления</b>: копии ваших уведомлений в группе, чтобы их видела и команда. Личные уведомления приходят как прежде.
    Меня ещё нет в группе? Нажмите <b>Добавить в группу</b> и выберите её (вы должны быть в ней администратором).
group-choose = Нажмите <b>Выбрать группу</b> ниже и выберите группу (вы должны быть в ней администратором, а я — участником).
group-kind-filled = Заказ выполнен
group-kind-failed = Заказ не выполнен
group-kind-paused = Правило приостановлено
group-kind-prices = Отслеживание цены
group-kind-other = Другие уведомления
group-card-title = 👥 Ваши уведомления копируются в <b>{ $title }</b>.
group-card-copied = Копируются: { $kinds }.
group-card-none = Сейчас ничего не копируется: включите нужное ниже.
group-card-hint = Нажмите на вид уведомления, чтобы включить или выключить его. Копия говорит, что произошло, но никогда не показывает ваш баланс и стоимость ваших заказов (они остаются в этом чате); кнопки, которые тратят деньги, в группе не появляются, а приостановить или возобновить ваши правила там можете только вы.
group-none-linked = Группа не выбрана. Отправьте /group, чтобы выбрать её.
group-stopped = Уведомления в группе остановлены: в <b>{ $title }</b> больше ничего не придёт. Отправьте /group, чтобы снова выбрать группу.
group-refused-bot-missing = Я не участник этой группы. Добавьте меня в неё и выберите её снова через /group.
group-refused-bot-muted = Я состою в этой группе, но не могу отправлять туда сообщения. Разрешите мне отправлять сообщения (в настройках группы для меня), затем выберите её снова через /group.
group-refused-not-admin = Вы не администратор этой группы. Отправлять туда уведомления может только администратор.
group-check-unanswered = Telegram не ответил, когда я проверял эту группу, поэтому ничего не привязано. Попробуйте ещё раз чуть позже через /group.
group-untitled = группа
group-linked = ✅ Готово: ваши уведомления будут копироваться в <b>{ $title }</b>.
group-alert-owner = 👤 <b>{ $name }</b>
group-ended-removed = 👥 Меня удалили из <b>{ $title }</b>, поэтому ваши уведомления туда больше не приходят. Отправьте /group, чтобы снова выбрать группу.
group-ended-not-admin = 👥 Вы больше не администратор <b>{ $title }</b>, поэтому ваши уведомления туда больше не приходят. Отправьте /group, чтобы снова выбрать группу.
group-ended-refused = 👥 Telegram больше не позволяет мне писать в <b>{ $title }</b>, поэтому ваши уведомления туда больше не приходят. Отправьте /group, чтобы снова выбрать группу.
group-here-title = 👥 Сюда приходят уведомления этих участников:
group-here-none = Сюда пока не приходят ничьи уведомления. Участник-администратор может настроить это, отправив мне /group в личном чате.
group-welcome = 👋 Здравствуйте! Я копирую сюда уведомления участников команды: выполненные и невыполненные заказы, приостановленные правила, отслеживание цены. Чтобы настроить это, администратор группы отправляет мне /group в личном чате. Всё остальное работает в личном чате со мной.
group-here-more = …и ещё { $count }.
group-not-owner = Приостановить или возобновить это правило может только { $name }.
group-not-owner-unnamed = Приостановить или возобновить это правило может только его владелец.
group-owner-no-key = API-ключ владельца больше не подключён.
group-rule-failed = Маркетплейс не принял это действие. Попробуйте снова через /rules в личном чате.
group-rule-resumed = Правило возобновлено.
group-rule-paused = Правило приостановлено.

## Spend guard and reminders
button-spend = ✅ Да, потратить { $total }
card-cap-today = Сегодня через этого бота: { $spent } из { $cap } TRX
card-cap-over = ⛔ С этим заказом покупки через бота за сегодня составят { $after } — больше вашего дневного лимита { $cap }. Сегодня его подтвердить нельзя: лимит обнуляется в 00:00 UTC, или измените его в /settings.
card-cap-refused = ⛔ Не размещён: покупки через бота за сегодня уже { $spent } при дневном лимите { $cap }, а этот заказ стоит { $total }. Ничего не списано. Лимит обнуляется в 00:00 UTC; изменить его можно в /settings.
card-ask-again-title = <b>Вы уверены?</b>
card-ask-again-order = { $volume } { $resource } на { $duration }
card-ask-again = Этот заказ дороже { $threshold } — суммы, выше которой вы просили переспрашивать (/settings). Нажмите «{ $button }», чтобы разместить его, или «Отмена».
alerts-ends = Окончание аренды
alerts-deliveries = Поставки по правилам
warning-12 = 12 ч
warning-24 = 24 ч
warning-72 = 3 дня
warning-0 = выкл.
settings-balance-warning = Предупреждение о низком балансе: { $value } (выберите ниже)
settings-guard-title = <b>Защита от трат</b>
settings-ask-above = Переспрашивать выше: { $value }
settings-daily-cap = Дневной лимит через бота: { $value }
settings-daily-cap-set = Дневной лимит через бота: { $value } (сегодня уже: { $today })
button-ask-above = 🛡 Переспрашивать выше…
button-daily-cap = 🛡 Дневной лимит…
button-turn-off = Выключить
guard-ask-title = Переспрашивать выше
guard-cap-title = Дневной лимит
guard-ask-question = Отправьте сумму в TRX: карточка подтверждения с итогом выше неё переспросит, кнопкой с этой суммой. Сейчас: { $value }.
guard-cap-question = Отправьте, сколько TRX самое большее тратить через бота в день (UTC): карточки покажут, сколько куплено сегодня, а сверх лимита не предложат «Подтвердить». Дневной лимит самого ключа на маркетплейсе тоже действует. Сейчас: { $value }.
guard-amount-off-hint = Отправьте <code>выкл</code>, чтобы выключить.
guard-amount-format = ❌ «{ $input }» — не сумма в TRX. Отправьте число, например 100 или 250,5, или «выкл». Ничего не изменено.
guard-amount-zero = ❌ Сумма должна быть больше 0 TRX. Чтобы выключить, отправьте «выкл». Ничего не изменено.
guard-amount-negative = ❌ Сумма не может быть отрицательной. Отправьте число больше 0 или «выкл». Ничего не изменено.
guard-amount-precision = ❌ У TRX не больше 6 знаков после запятой. Ничего не изменено.
guard-amount-high = ❌ Это больше { $max } — максимума для этой настройки. Ничего не изменено.
guard-ask-saved = ✅ Переспрашивать выше: { $value }. Карточке дороже этой суммы нужно второе нажатие с её итогом.
guard-ask-off = ✅ Переспрашивание выключено: карточка подтверждается одним нажатием.
guard-cap-saved = ✅ Дневной лимит через бота: { $value } в сутки (UTC).
guard-cap-off = ✅ Дневной лимит выключен.
alert-rental-ends = ⏳ Ваша аренда заканчивается через { $minutes } мин (заказ { $id }).
alert-rental-what = Аренда: { $volume } { $resource } на { $duration }
alert-rental-at = Заканчивается в { $time }.
alert-rental-hint = «Продлить» откроет новую карточку подтверждения той же аренды по сегодняшней цене.
button-renew = 🔁 Продлить
runway-line = 📉 Правила: около { $perDay } TRX в день; баланса хватит { $lasts } (оценка по поставкам за последние 7 дней).
runway-days = примерно на { $count } { $count ->
    [one] день
    [few] дня
   *[other] дней
  }
runway-hours = примерно на { $count } { $count ->
    [one] час
    [few] часа
   *[other] часов
  }
runway-under-hour = меньше чем на час
alert-low-balance = ⚠️ Низкий баланс: осталось { $balance }.
alert-low-balance-delivery = Его не хватит на следующую поставку по правилу { $id } ({ $cost }): маркетплейс приостанавливает правило, если баланс не покрывает его следующую поставку.
alert-low-balance-runway = При расходе около { $perDay } TRX в день (за последние 7 дней) баланса хватит { $lasts }: меньше, чем { $warning }, за которые вы просили предупредить.
alert-low-balance-hint = Пополните баланс, чтобы правила продолжали работать. Это предупреждение приходит один раз; пополнение снова его включает. Время предупреждения — в /settings.
alert-delivered-firing = 📦 Правило { $id } ({ $kind }) доставило { $volume } энергии на { $address } за { $price }.
alert-delivered-when = { $time } · на { $duration }
alert-delivered-time = { $time }
## Auto-buys
command-autobuy = автопокупка: бот сам покупает аренду, когда ваша сумма не выше лимита, в пределах дневного бюджета
command-autobuys = ваши автопокупки: пауза, возобновление, удаление, последние заказы
button-stop = ⏹ Остановить
button-auto-buy = 🤖 Автопокупка
button-make-autobuy = 🤖 Сделать автопокупкой
button-autobuys = 📋 Все автопокупки
button-autobuy-open = ⚙️ { $n }
button-autobuy-pause = ⏸ Пауза { $n }
button-autobuy-resume = ▶️ Возобновить { $n }
button-autobuy-delete = 🗑 Удалить { $n }
button-autobuy-orders = Заказов в день: { $count }
button-autobuy-days = Срок: { $days } дн.
autobuy-rent = { $volume } { $resource } на { $duration }
autobuy-card-title = 🤖 <b>Подтвердите автопокупку</b>: сейчас ничего не покупается
autobuy-card-rent = Аренда: { $rent }
autobuy-card-address = Для: { $value }
autobuy-card-max = Не больше за заказ: <b>{ $value }</b> (ваша собственная сумма заказа: цена и плата за активацию)
autobuy-card-total-now = Ваша сумма за этот заказ сейчас: { $value }
autobuy-card-budget = Дневной бюджет: <b>{ $value }</b> (сутки UTC)
autobuy-card-orders = Заказов в день: не больше { $count }
autobuy-card-ends = Окончание: через { $days } дн. после подтверждения (около { $time })
autobuy-card-worst = <b>В худшем случае: { $day } в день, { $all } всего</b> ({ $days } сут. UTC)
autobuy-card-balance = Баланс сейчас: { $value }
autobuy-card-one-rental = Одна аренда на адрес за раз: нового заказа нет, пока действует аренда, купленная ею для этого адреса.
autobuy-card-under-now = ℹ️ Ваша сумма уже не выше лимита: первый заказ может быть сделан при следующей проверке цены.
autobuy-card-authorizes = Подтверждая, вы разрешаете этому боту размещать такие заказы вашим API-ключом без повторного вопроса и только в этих пределах. О каждой покупке вам сообщат; поставить на паузу или остановить можно в любой момент в /autobuys или переключателем «Автоматические покупки» в /settings.
autobuy-created = ✅ Автопокупка <code>{ $id }</code> создана. Сейчас ничего не куплено. Она покупает, когда ваша сумма не выше лимита, до { $time }. Смотрите /autobuys.
autobuy-limit = У вас уже { $max } автопокупок — это максимум. Сначала удалите одну в /autobuys.
autobuy-switch-off = ⛔ Автоматические покупки выключены в /settings: нельзя создать или возобновить автопокупку, пока вы их там не включите.
ask-autobuy-max = Сколько TRX максимум может стоить один заказ? Ваша сумма за этот заказ сейчас { $total } (цена и плата за активацию), ваш баланс { $balance }. Введите сумму (2,5) или нажмите кнопку.
ask-autobuy-max-short = Максимум за заказ?
ask-autobuy-budget = Сколько TRX можно тратить за сутки UTC? Не меньше максимума за заказ ({ $max }). Введите сумму или нажмите кнопку.
ask-autobuy-budget-short = Дневной бюджет?
input-autobuy-amount-format = Не удалось прочитать сумму в TRX. Напишите, например, 2,5 или 2.5 TRX.
input-autobuy-amount-zero = Сумма должна быть больше нуля.
input-autobuy-amount-precision = У TRX не больше 6 знаков после запятой (0,000001).
input-autobuy-amount-high = Эта сумма намного больше любой аренды. Проверьте число.
input-autobuy-max-over-balance = Это больше вашего баланса ({ $balance }): такой заказ нельзя оплатить. Выберите сумму меньше или сначала пополните баланс.
input-autobuy-budget-under-max = Дневной бюджет должен быть не меньше максимума за заказ ({ $max }), иначе за день не поместится ни один заказ.
autobuy-status-active = 🟢 покупает, когда цена подходит
autobuy-status-paused = ⏸ на паузе (вы поставили)
autobuy-status-paused-switch = ⏸ на паузе: автоматические покупки выключены
autobuy-status-waiting = ⏳ достигнут дневной лимит расходов ключа; возобновится сама в { $time }
autobuy-status-stopped = ⏹ остановлена: { $why }
autobuy-status-ended = 🏁 завершена: наступила дата окончания
autobuy-status-ended-user = 🏁 остановлена вами
autobuy-reason-user = вами
autobuy-reason-switch = автоматические покупки выключены
autobuy-reason-balance = баланса не хватило на заказ
autobuy-reason-scope = API-ключ не может покупать
autobuy-reason-key = API-ключ отклонён
autobuy-reason-provider = поставщик дважды подряд не выполнил заказ
autobuy-reason-rejected = маркетплейс отклонил заказ
autobuy-reason-relinked = подключён другой API-ключ
autobuy-reason-spend-limit = дневной лимит расходов ключа
autobuy-reason-ended = наступила дата окончания
autobuys-empty = У вас пока нет автопокупок. Пример: <code>/autobuy energy 65k 1h T… 3 10</code> покупает 65 000 энергии на 1 час для вашего адреса, когда ваша сумма не больше 3 TRX, и не больше 10 TRX в день. В карточке слежения за ценой тоже есть «Сделать автопокупкой».
autobuys-title = <b>Ваши автопокупки</b> ({ $count } из { $max })
autobuys-line = { $rent } → { $address } · ≤ { $max } · сегодня осталось { $left } из { $budget } · до { $ends }
autobuys-toast-changed = Автопокупки тем временем изменились: вот они сейчас.
autobuy-view-title = 🤖 <b>Автопокупка</b> <code>{ $id }</code>
autobuy-view-budget = Дневной бюджет: { $budget } (осталось сегодня: { $left }, сутки UTC)
autobuy-view-ends = Окончание: { $time }
autobuy-view-price = Публичная цена сейчас: { $price } (на { $time })
autobuy-view-price-unknown = Публичная цена сейчас: ещё не проверена
autobuy-view-status = Состояние: { $value }
autobuy-view-no-orders = Заказов пока нет.
autobuy-view-orders = Последние заказы:
autobuy-view-order = • { $time } · { $total } · заказ { $id }
autobuy-view-order-refunded = • { $time } · { $total } · заказ { $id } (не выполнен, возвращено)
autobuy-gone = Этой автопокупки больше нет.
autobuy-switch-off-toast = Автоматические покупки выключены в /settings: сначала включите их там.
autobuy-no-key-toast = Нет рабочего API-ключа: сначала подключите его через /connect.
autobuy-ended-toast = Эта автопокупка завершена: создайте новую через /autobuy.
autobuy-deleted = 🗑 Автопокупка <code>{ $id }</code> удалена.
autobuy-pause-done = На паузе: ничего не покупается, пока вы не возобновите.
autobuy-resume-done = Возобновлено: покупает снова, когда цена подходит.
autobuy-stop-done = Остановлена навсегда: больше ничего не покупается.
alert-autobought = 🤖 <b>Автокуплено</b> (Auto-bought) <code>{ $id }</code>: { $rent }
alert-autobought-target = Для: { $value }
alert-autobought-total = Сумма: <b>{ $total }</b> (ваш лимит: { $cap })
alert-autobought-left = Осталось от дневного бюджета: { $left } из { $budget } (сутки UTC)
alert-autobought-hint = Обычное уведомление об исполнении или ошибке придёт, когда заказ завершится.
alert-autobuy-stopped = ⏹ { $count ->
    [one] Автопокупка остановлена
   *[other] Автопокупки остановлены
  }: { $names }
alert-autobuy-waiting = ⏸ { $count ->
    [one] Автопокупка на паузе
   *[other] Автопокупки на паузе
  } до следующих суток UTC: { $names }
alert-autobuy-why-balance = Почему: баланса не хватило на следующий заказ (402).
alert-autobuy-do-balance = Что делать: пополните баланс, затем нажмите «Возобновить».
alert-autobuy-why-scope = Почему: ваш API-ключ не может покупать (403: нет права <code>purchase</code>).
alert-autobuy-do-scope = Что делать: подключите ключ с правом покупки через /connect, затем возобновите её в /autobuys.
alert-autobuy-why-key = Почему: маркетплейс отклонил ваш API-ключ (401).
alert-autobuy-do-key = Что делать: подключите рабочий ключ через /connect, затем возобновите её в /autobuys.
alert-autobuy-why-provider = Почему: поставщик дважды подряд не выполнил заказ (502); эти заказы возвращены.
alert-autobuy-do-provider = Что делать: нажмите «Возобновить», чтобы попробовать позже.
alert-autobuy-why-rejected = Почему: маркетплейс отклонил заказ: { $detail }
alert-autobuy-do-rejected = Что делать: проверьте её в /autobuys; если что-то изменилось, создайте новую через /autobuy.
alert-autobuy-why-relinked = Почему: подключён другой API-ключ; автопокупки, созданные с прежним ключом, останавливаются.
alert-autobuy-do-relinked = Что делать: возобновите её в /autobuys, чтобы покупать с новым ключом.
alert-autobuy-why-ended = Почему: наступила дата окончания.
alert-autobuy-do-ended = Что делать: больше ничего не покупается; создайте новую через /autobuy.
alert-autobuy-why-spend-limit = Почему: достигнут дневной лимит расходов вашего API-ключа (403).
alert-autobuy-do-spend-limit = Что делать: ничего; она возобновится сама в 00:00 UTC.
connect-autobuys-stopped = ⏹ { $count ->
    [one] Ваша автопокупка создана
   *[other] Ваши автопокупки ({ $count }) созданы
  } с прежним ключом и поэтому { $count ->
    [one] остановлена
   *[other] остановлены
  }. Возобновите их в /autobuys, чтобы покупать с этим ключом.
settings-autobuying = Автоматические покупки: { $state }
settings-autobuying-on = Автопокупки покупают в своих пределах. Выключение сразу останавливает все автопокупки.
settings-autobuying-off = Ни одна автопокупка не покупает, и их нельзя создать или возобновить, пока вы не включите. Включение само ничего не возобновляет.
