"""A person's walk through PointApp, on a phone and on a desktop: find a survey, get its errors,
answer it, go Back and Refresh, answer enough to fill two history pages, claim a mission,
exchange points. Every page on the way is checked (helpers.Browser.check).

The walk's user holds enough from an earlier month to be シルバー: each answer also pays the rank's
bonus, a movement of its own (ランクボーナス「…」)."""

import re
import urllib.error
import urllib.request

from helpers import Browser, points, verify_address

# The walk's user arrives with points from an old campaign: the whole catalog pays less than the
# cheapest exchange (3,000pt).
STARTING_POINTS = 3_000
# Answers in all, the first included: with the old reward, one more movement than a history page
# holds (20), so the history has a second page.
SURVEYS_TO_ANSWER = 20
ANSWER_TEXT = "とても参考になりました。"


def test_walk(browser: Browser, server):
    b = browser
    b.sign_in_as(server.seed_user(STARTING_POINTS))
    percent = rank_bonus_percent(b)

    survey = choose_survey_from_the_list(b)
    paid, reward = answer_after_a_blank_submit(b, survey, percent)
    back_and_refresh_after_answering(b, paid)
    answered = [(survey["title"], reward)] + answer_more_surveys(b, SURVEYS_TO_ANSWER - 1, percent)
    read_points_and_history(b, [title for title, _ in answered],
                            bonuses=sum(rank_bonus(reward, percent) > 0 for _, reward in answered))
    claim_a_mission(b)
    exchange_points(b, server)
    b.assert_no_problems()


def rank_bonus_percent(b: Browser) -> int:
    """The rank's bonus on survey rewards this month, as the points page says it (+3%)."""
    b.open("/points", "points-rank")
    found = re.search(r"\+(\d+)%", b.find("main .rank-card").text)
    assert found, f"{b.page_name}: the rank card names no bonus: {b.find('main .rank-card').text!r}"
    return int(found.group(1))


def rank_bonus(reward: int, percent: int) -> int:
    """What the rank adds to a reward (rounded down)."""
    return reward * percent // 100


# The list.

def cards(b: Browser) -> list[dict]:
    """The survey cards as a person reads them: the open ones first, then those that take no more
    answers (受付終了, `closed`)."""
    return [
        {"link": card, "title": b.find(".survey-title", card).text, "category": b.find(".category", card).text,
         "reward": points(b.find(".reward", card).text), "answered": "回答済み" in card.text,
         "screening": "事前調査あり" in card.text,
         "closed": "closed" in (card.get_attribute("class") or "").split() or "受付終了" in card.text}
        for card in b.find_all("main .survey-list a")
    ]


def answerable(card: dict) -> bool:
    """A card the walk answers at once: open, not answered, without a screening (test_panel.py
    walks the screenings; targeted surveys are not listed for a user without a profile)."""
    return not card["closed"] and not card["answered"] and not card["screening"]


def in_order(cards: list[dict], key: str) -> bool:
    """Each part of the list (open, then 受付終了) is sorted most first by `key`."""
    return all([card[key] for card in part] == sorted((card[key] for card in part), reverse=True)
               for part in ([c for c in cards if not c["closed"]], [c for c in cards if c["closed"]]))


def selected(element) -> bool:
    return "selected" in (element.get_attribute("class") or "").split()


def choose_survey_from_the_list(b: Browser) -> dict:
    """Filters the list by a category, then sorts it by reward: a category whose newest-first list
    is not already in reward order, so that sorting visibly changes it."""
    b.open("/surveys", "surveys")
    everything = cards(b)
    assert len(everything) > 5, "the list shows the catalog's surveys"
    chips = b.find_all("main .chips a")
    assert chips[0].text == "すべて" and selected(chips[0]), "at first every category is shown"

    for index in range(1, len(chips)):
        chip = b.find_all("main .chips a")[index]
        category = chip.text
        b.follow(chip, f"surveys-category-{index}")
        chips = b.find_all("main .chips a")
        b.expect(selected(chips[index]) and not any(selected(other) for other in chips if other != chips[index]),
                 f"the chip {category} is marked selected, and no other")
        in_category = cards(b)
        assert in_category, f"{category} has surveys"
        b.expect(all(card["category"] == category for card in in_category) and len(in_category) < len(everything),
                 f"the list shows {category} only: {[card['category'] for card in in_category]}")
        newest_first = [card["reward"] for card in in_category]
        if not in_order(in_category, "reward"):
            break
    else:
        raise AssertionError("no category's list changes when sorted by reward")

    b.follow(b.link("ポイント順", b.find("main .sorts")), "surveys-category-by-reward")
    b.expect(selected(b.link("ポイント順", b.find("main .sorts"))), "the sort ポイント順 is marked selected")
    b.expect(selected(b.link(category, b.find("main .chips"))), f"the chip {category} stays selected")
    by_reward = cards(b)
    rewards = [card["reward"] for card in by_reward]
    b.expect(sorted(card["title"] for card in by_reward) == sorted(card["title"] for card in in_category),
             "sorting keeps the same surveys")
    b.expect(in_order(by_reward, "reward"), f"the most paying first (open, then 受付終了): {newest_first} became {rewards}")
    # The walk answers a survey's own questions at once: an open one without a screening.
    return next(card for card in by_reward if answerable(card))


# A survey.

def questions(b: Browser):
    return b.find_all("main form fieldset")


def answer_every_question(b: Browser):
    """The first choice of each group (a rating too), the first checkbox, a comment in each text
    box."""
    for question in questions(b):
        groups = {}
        for radio in b.find_all("input[type=radio]", question):
            groups.setdefault(radio.get_attribute("name"), radio)
        for radio in groups.values():
            b.tick(radio)
        boxes = b.find_all("input[type=checkbox]", question)
        if boxes and not any(box.is_selected() for box in boxes):
            b.tick(boxes[0])
        for box in b.find_all("textarea", question):
            box.clear()
            box.send_keys(ANSWER_TEXT)
        for box in b.find_all("input[inputmode=numeric]", question):
            box.clear()
            box.send_keys(box.get_attribute("data-min"))


def submit_button(b: Browser):
    return b.find("main form button[type=submit]")


def open_survey(b: Browser, survey: dict, slug: str) -> int:
    """Opens a survey from the list; its reward."""
    b.follow(survey["link"], slug)
    b.expect(b.find("main h1").text == survey["title"], f"the page of {survey['title']}")
    return points(b.find("main .reward").text)


def check_completion(b: Browser, title: str, reward: int, balance_before: int, percent: int) -> int:
    """The page shows the survey's reward; the balance has its rank bonus too."""
    b.expect(title in b.text() and f"+{reward:,}pt" in b.text(),
             f"the completion page of {title} shows +{reward:,}pt")
    balance = b.balance()
    paid = reward + rank_bonus(reward, percent)
    b.expect(balance == balance_before + paid,
             f"the balance went from {balance_before} to {balance}, not +{paid} (+{reward} and the rank's {percent}%)")
    return balance


def answer_after_a_blank_submit(b: Browser, survey: dict, percent: int) -> tuple[int, int]:
    """The balance after the answer, and the survey's reward."""
    reward = open_survey(b, survey, "survey")
    before = b.balance()

    b.follow(submit_button(b), "survey-blank-submitted", expected_status=422)
    b.expect(b.balance() == before, "a refused form pays nothing")
    invalid = []
    for question in questions(b):
        optional = "任意" in b.find(".hint", question).text
        errors = [error.text for error in b.find_all(".field-error", question) if error.is_displayed()]
        legend = b.find("legend", question).text
        b.expect(bool(errors) != optional, f"question {legend!r} ({'optional' if optional else 'required'}) shows errors {errors}")
        if errors:
            invalid.append(question)
    if invalid:
        check_error_summary(b, invalid)
    else:
        b.problem("the blank submit shows no error at all")

    answer_every_question(b)
    b.follow(submit_button(b), "complete")
    return check_completion(b, survey["title"], reward, before, percent), reward


def check_error_summary(b: Browser, invalid):
    """The summary of errors is where keyboard and screen reader users land (focused), or leads
    them to each question in error (links)."""
    summaries = [element for element in b.find_all("main [role=alert], main .error-summary, main .flash-error")
                 if element.is_displayed()]
    if not summaries:
        return b.problem("no error summary is shown")
    summary = summaries[0]
    focused = b.driver.execute_script(
        "return arguments[0] === document.activeElement || arguments[0].contains(document.activeElement)", summary)
    linked = set()
    for link in b.find_all("a[href^='#']", summary):
        target = b.driver.execute_script(
            "return document.getElementById(decodeURIComponent(arguments[0].hash.slice(1)))", link)
        for question in invalid:
            if target and b.driver.execute_script("return arguments[0].contains(arguments[1])", question, target):
                linked.add(question.id)
    all_linked = linked == {question.id for question in invalid}
    b.expect(focused or all_linked,
             f"the error summary {summary.text!r} is neither focused (focus is on "
             f"{b.driver.switch_to.active_element.tag_name}) nor links to each of the {len(invalid)} questions in error "
             f"({len(linked)} linked)")


def back_and_refresh_after_answering(b: Browser, paid: int):
    """Refresh, Back, Back, Refresh from the completion page: always a real page, never paid
    again."""
    for step, go in (("complete-refreshed", b.refresh), ("complete-back", b.back),
                     ("complete-back-back", b.back), ("complete-back-back-refreshed", b.refresh)):
        if go(step):
            b.expect(b.balance() == paid, f"the balance shows {b.balance()} after {step}, not {paid} as after payment")


def answer_more_surveys(b: Browser, count: int, percent: int) -> list[tuple[str, int]]:
    """Answers the next unanswered surveys of the list, as one does after the first; their titles
    and rewards."""
    b.open("/surveys", "surveys-after-answer-1")
    answered = []
    for number in range(2, count + 2):
        waiting = [card for card in cards(b) if answerable(card)]
        assert waiting, f"an unanswered survey is left for answer {number}"
        survey = waiting[0]
        reward = open_survey(b, survey, f"survey-{number}")
        before = b.balance()
        answer_every_question(b)
        b.follow(submit_button(b), f"complete-{number}")
        check_completion(b, survey["title"], reward, before, percent)
        answered.append((survey["title"], reward))
        b.follow(b.link("次のアンケートへ"), f"surveys-after-answer-{number}")
        b.expect(any(card["title"] == survey["title"] and card["answered"] for card in cards(b)),
                 f"{survey['title']} is marked 回答済み in the list")
    return answered


# Points.

def ledger_lines(b: Browser) -> list[str]:
    return [line.text for line in b.find_all("main .ledger li")]


def pager(b: Browser) -> tuple[int, int]:
    number, count = b.find("main .pager span").text.split("/")
    return int(number), int(count)


def read_points_and_history(b: Browser, answered: list[str], bonuses: int):
    """`bonuses`: how many answers paid a rank bonus (a movement each)."""
    b.follow(b.find("header .balance"), "points")
    balance = b.balance()
    b.expect(points(b.find("main .balance-card").text) == balance, "the points page shows the header's balance")
    recent = ledger_lines(b)
    b.expect(bool(recent) and answered[-1] in recent[0], f"the newest movement is the last answer: {recent[:1]}")

    b.follow(b.link("すべての履歴"), "history")
    lines = ledger_lines(b)
    number, count = pager(b)
    b.expect((number, len(lines)) == (1, 20) and count >= 2, f"page {number} / {count} with {len(lines)} movements")
    while number < count:
        b.follow(b.link("古い履歴"), f"history-{number + 1}")
        page = ledger_lines(b)
        b.expect(bool(page) and pager(b)[0] == number + 1 and f"page={number + 1}" in b.driver.current_url,
                 f"history page {number + 1} shows its movements")
        lines += page
        number = pager(b)[0]
    expected = len(answered) + bonuses + 1  # and the old reward
    answers = [line for line in lines if line.startswith("アンケート回答")]
    b.expect(len(lines) == expected and sum(title in line for title in answered for line in answers) == len(answered),
             f"the history has {len(lines)} movements, not {expected} "
             f"(one per answer, {bonuses} rank bonuses and the old reward)")


# Missions.

def mission(b: Browser, title: str):
    for item in b.find_all("main .missions li"):
        if title in item.text:
            return item
    raise AssertionError(f"{b.page_name}: no mission {title!r}")


def claim_button(b: Browser, title: str):
    buttons = b.find_all("form button", mission(b, title))
    return buttons[0] if buttons else None


def claim_a_mission(b: Browser):
    b.follow(b.link("ミッション", b.find("nav.tabs")), "missions")
    claimable = [item for item in b.find_all("main .missions li") if b.find_all("form button", item)]
    assert claimable, "after several answers a mission can be claimed"
    title = b.find(".mission-title", claimable[0]).text
    bonus = points(claim_button(b, title).text)
    before = b.balance()

    # The same page in a second tab: its button will send the same claim once it has been paid.
    first_tab = b.driver.current_window_handle
    b.new_tab()
    b.open("/missions", "missions-second-tab")
    second_tab = b.driver.current_window_handle
    b.driver.switch_to.window(first_tab)

    b.follow(claim_button(b, title), "missions-claimed")
    claimed = b.balance()
    b.expect(claimed == before + bonus, f"claiming {title} paid {claimed - before}, not its bonus {bonus}")
    b.expect("受け取り済み" in mission(b, title).text and claim_button(b, title) is None, f"{title} shows as claimed")

    if b.refresh("missions-claimed-refreshed"):
        b.expect(b.balance() == claimed, f"Refresh after the claim shows {b.balance()}, not {claimed}")
    if b.back("missions-claimed-back"):
        b.expect(b.balance() == claimed, f"Back after the claim shows {b.balance()}, not {claimed}")
        again = claim_button(b, title)
        if again:  # the page before the claim, button and all: send it again
            b.follow(again, "missions-claimed-again")
            b.expect(b.balance() == claimed, f"claiming {title} again changed the balance to {b.balance()}")

    b.driver.switch_to.window(second_tab)
    b.follow(claim_button(b, title), "missions-claimed-from-second-tab")
    b.expect(b.balance() == claimed, f"claiming {title} from a second tab changed the balance to {b.balance()}")
    b.expect("受け取り済み" in mission(b, title).text, f"{title} shows as claimed")
    b.driver.close()
    b.driver.switch_to.window(first_tab)


# Exchange.

def exchange_points(b: Browser, server):
    """Points leave from an account only: the walk's guest registers first (the password typed
    just now, the confirmation does not ask for it again)."""
    b.open("/exchange/digital-gift-300", "exchange-as-guest")
    b.expect(b.driver.current_url.endswith("/login") and "ログインが必要" in b.text(), "a guest is asked to log in first")
    b.follow(b.link("新規登録"), "register-before-exchange")
    for field, value in (("#email", f"walk-{b.window}@example.jp"), ("#password", "aruki no pasuwaado")):
        b.find(field).send_keys(value)
    b.follow(b.find("main form button[type=submit]"), "registered-before-exchange")
    verify_address(b, server, f"walk-{b.window}@example.jp", "walk")
    b.open("/points", "points-before-exchange")
    b.follow(b.link("ポイントを交換する"), "exchange")
    before = b.balance()
    b.expect(points(b.find("main").text) == before, "the exchange page shows the balance")
    affordable = [item for item in b.find_all("main .options li") if b.find_all("a", item)]
    assert affordable, f"with {before}pt an option can be had"
    option = b.find("strong", affordable[0]).text
    cost = points(b.find(".reward", affordable[0]).text)

    b.follow(b.link("交換する", affordable[0]), "exchange-confirmation")
    b.expect(option in b.text() and f"{cost:,}pt" in b.text(), f"the confirmation names {option} and {cost:,}pt")
    b.expect(b.balance() == before, "opening the confirmation spends nothing")

    # The request is answered at once: its page, with the code (test_exchange.py reads it closely).
    b.follow(b.link("交換を申請する", b.find("main")), "exchange-done")
    spent = b.balance()
    b.expect(spent == before - cost, f"exchanging {option} took {before - spent}pt, not {cost}pt")
    b.expect("/exchange/history/" in b.driver.current_url and option in b.find("main .details").text
             and bool(b.find_all("main .gift-code code")), f"the request's page names {option} and shows its code")
    messages = [message.text for message in b.find_all("main [role=status], main .flash")]
    b.expect(any("申請番号" in message for message in messages), f"a message confirms the request: {messages}")
    for step, go in (("exchange-done-refreshed", b.refresh), ("exchange-done-back", b.back)):
        if go(step):
            b.expect(b.balance() == spent, f"{step} shows {b.balance()}, not {spent}")

    b.open("/points", "points-after-exchange")
    exchanges = [line for line in ledger_lines(b) if option in line]
    b.expect(len(exchanges) == 1 and f"-{cost:,}pt" in exchanges[0].replace("−", "-"),
             f"one movement of -{cost:,}pt for {option}: {exchanges}")
    b.expect(b.balance() == spent, f"the points page shows {b.balance()}, not {spent}")


# What an operator reads on the metrics port after the walks (run after them: pytest keeps a file's order).

def samples(url: str) -> dict[str, float]:
    with urllib.request.urlopen(url, timeout=5) as response:
        assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = response.read().decode()
    found = {}
    for line in text.splitlines():
        match = re.fullmatch(r"([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{.*\})?) (\S+)", line)
        if match and not line.startswith("#"):
            found[match.group(1)] = float(match.group(2))
    return found


def test_metrics_show_requests_and_the_products_figures(server, capsys):
    figures = samples(server.metrics_url)
    product = {name: value for name, value in figures.items()
               if name.startswith("pointapp_") and "_bucket" not in name}
    with capsys.disabled():
        print("\nmetrics after the walks: " + ", ".join(f"{name} {value:g}" for name, value in sorted(product.items())))
    answers = [value for name, value in figures.items()
               if name.startswith("hb_requests{") and 'http_route="/surveys/{id}/answers"' in name and '"303"' in name]
    assert answers and sum(answers) > 0, "requests are counted by route pattern and status"
    for figure in ("pointapp_answers_accepted", "pointapp_mission_claims", "pointapp_exchanges",
                   'pointapp_points_issued{reason="survey"}', "pointapp_store_update_seconds_count"):
        assert figures.get(figure, 0) > 0, f"{figure} counts what the walks did: {product}"
    assert figures.get("pointapp_responses_5xx") == 0, "no request failed"
    with urllib.request.urlopen(server.base_url + "/healthz", timeout=5):
        pass
    try:
        urllib.request.urlopen(server.base_url + "/metrics", timeout=5)
        raise AssertionError("the metrics are served on the public port")
    except urllib.error.HTTPError as error:
        assert error.code == 404
