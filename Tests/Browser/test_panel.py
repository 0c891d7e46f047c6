"""A research panel's walk, as a person on a phone and on a desktop: the profile (refused, then
saved with its bonus), a survey outside the profile (対象外), a screening that does not qualify
(今回は対象外でした: its consolation once, through Back and Refresh), one that qualifies and leads
to the survey's own questions, and a full survey (受付終了: listed after the open ones, its page
takes no answer)."""
from selenium.webdriver.support.ui import Select

from helpers import Browser, points
from test_walk import answer_every_question, submit_button


def test_profile_screening_and_a_qualifying_survey(browser: Browser):
    b = browser
    b.open("/surveys", "panel-surveys-first-visit")
    b.open("/surveys", "panel-surveys")
    b.expect("プロフィールを登録" in b.text(), "the list invites a person without a profile to fill one")
    b.follow(b.link("プロフィールを登録"), "panel-profile")

    # Sent blank: an error at each field, nothing paid.
    b.follow(submit_button(b), "panel-profile-refused")
    b.expect(b.find("main .error-summary").is_displayed() and "4件" in b.find("main .error-summary").text,
             "a blank profile names its four fields")
    b.expect(b.balance() == 0, "a refused profile pays nothing")

    year = b.find("#profile-birthYear")
    year.clear()
    year.send_keys("1995")
    b.tick(b.find("#profile-gender-female"))
    Select(b.find("#profile-prefecture")).select_by_value("tokyo")
    Select(b.find("#profile-occupation")).select_by_value("companyEmployee")
    b.follow(submit_button(b), "panel-profile-saved")
    b.expect("ボーナス50pt" in b.text() and b.balance() == 50, "the first profile pays 50pt")
    b.refresh("panel-profile-saved-refreshed")
    b.expect(b.balance() == 50, "Refresh after saving pays nothing more")

    # The list now holds the surveys meant for a woman in Tokyo, not those for men.
    b.open("/surveys", "panel-surveys-with-profile")
    titles = b.text()
    b.expect("首都圏の通勤に関するアンケート" in titles and "男性の身だしなみ家電調査" not in titles,
             "the list follows the profile")
    b.open("/surveys/tech-005", "panel-survey-outside-target")
    b.expect("このアンケートは対象外です" in b.text(), "a survey for men says 対象外 to a woman")

    # A screening that does not qualify: thanked once.
    b.open("/surveys/ent-002", "panel-screening")
    b.expect("事前調査" in b.text(), "the survey asks its screening first")
    b.tick(b.find("main input[value='s1-3']"))
    b.follow(submit_button(b), "panel-screened-out")
    b.expect("今回は本調査の対象外でした" in b.text() and "+3pt" in b.text(), "screened out, with 3pt")
    balance = b.balance()
    b.expect(balance == 53, f"the consolation arrived: {balance}")
    b.back("panel-screened-out-back")
    b.expect(b.balance() == 53, "Back pays nothing more")
    b.refresh("panel-screened-out-refreshed")
    b.expect(b.balance() == 53 and "今回は本調査の対象外でした" in b.text(), "Refresh shows the same result, paid once")

    # A screening that qualifies leads on to the survey's own questions.
    b.open("/surveys/tech-002", "panel-screening-2")
    b.tick(b.find("main input[value='s1-1']"))
    b.follow(submit_button(b), "panel-qualified")
    b.expect("本調査にお答えください" in b.text() and "回答して" in submit_button(b).text,
             "qualified: the survey's own questions follow")
    reward = points(b.find("main .reward").text)
    # The first choice everywhere: a straight-lined grid and a missed attention check. Sent back
    # once, unpaid, with a polite notice and the answers kept.
    answer_every_question(b)
    b.follow(submit_button(b), "panel-review")
    b.expect("回答内容をご確認ください" in b.text() and b.balance() == 53, "careless answers are sent back for review, unpaid")
    # Reviewed: each grid row its own answer, the attention check as instructed (あてはまらない).
    for number, row in enumerate(b.find_all("main .grid-row")):
        radios = b.find_all("input[type=radio]", row)
        b.tick(radios[number % len(radios)])
    b.tick(b.find("main input[value='a1-4']"))
    b.follow(submit_button(b), "panel-complete")
    b.expect(f"+{reward:,}pt" in b.text() and b.balance() == 53 + reward, f"the survey paid {reward}pt")

    # A full survey: listed under 受付を終了したアンケート, after the open ones; its page says so
    # and has nothing to answer. Surveys nearly full say how many places are left.
    b.open("/surveys", "panel-surveys-closed")
    few_left = [badge.text for badge in b.find_all("main .survey-card .badge.few-left")]
    b.expect(any("残りわずか" in text for text in few_left), f"a survey with few places left says 残りわずか: {few_left}")
    heading = b.find_all("main h2.closed-heading")
    b.expect(bool(heading) and heading[0].text == "受付を終了したアンケート", "the list has a section of closed surveys")
    closed = b.find_all("main h2.closed-heading + ul.survey-list a")
    full = [card for card in closed if card.get_attribute("href").endswith("/surveys/food-005")]
    assert full, f"the full survey food-005 is listed under 受付を終了したアンケート: {[c.get_attribute('href') for c in closed]}"
    b.expect("closed" in full[0].get_attribute("class").split() and "受付終了" in full[0].text,
             f"the card of food-005 is marked 受付終了: {full[0].text!r}")
    b.expect(len([card for card in b.find_all("main .survey-list a") if card.get_attribute("href").endswith("/surveys/food-005")]) == 1,
             "food-005 is listed once, among the closed surveys only")
    balance = b.balance()
    b.follow(full[0], "panel-survey-closed")
    b.expect(b.driver.current_url.endswith("/surveys/food-005") and "このアンケートの受付は終了しました" in b.text(),
             "the full survey's page says its answers are closed")
    b.expect(not b.find_all("main form"), "the closed survey's page has no form")
    b.expect(b.balance() == balance, "the closed page pays nothing")
    b.assert_no_problems()
