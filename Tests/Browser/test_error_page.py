"""An unknown address gets the site's own 404 page, which is checked as every page is."""

from helpers import Browser


def test_not_found_page(browser: Browser):
    b = browser
    assert b.open("/surveys/nope", "not-found", expected_status=404)
    b.expect(b.find("main h1").text != "", "the 404 page says what happened")
    b.expect("404" in b.text(), "the 404 page shows its status")
    b.follow(b.link("アンケート一覧"), "not-found-back-to-list")
    b.expect(b.driver.current_url.endswith("/surveys") and b.find_all("main .survey-list a"),
             "the 404 page leads back to the list")
    b.assert_no_problems()
