import Foundation
import PointApp

extension Pages {
  /// The list page. Its parts that many users share are rendered once by `fragments` and kept:
  /// the category and sort links (`survey-filters`) and each survey's card (`survey-row`), and the
  /// whole page with the member's address and balance left out (`PageRenderer.surveysPage`).
  /// Anything else of the member's that it or a card shows must be in their keys
  /// (`PageRenderer.ListKey`, `CardKey`), or every member would see the first one's.
  public static func surveys(_ state: AppFeature.State, fragments: PageRenderer) -> [String: Any] {
    surveys(state, fragments: fragments, key: PageRenderer.ListKey(state))
  }

  /// The list page of `state`, whose list `key` describes (worked out once by the caller).
  static func surveys(_ state: AppFeature.State, fragments: PageRenderer, key: PageRenderer.ListKey) -> [String: Any] {
    let page = state.surveyList.page
    return layout(state, body: [
      "filters": fragments.surveyFilters(category: page.category, sort: page.sort),
      "list": fragments.surveyRows(page.surveys, keys: key.open),
      "closedList": page.closedSurveys.isEmpty ? false : fragments.surveyRows(page.closedSurveys, keys: key.closed),
      // An empty list says why; a failed load leaves it empty.
      "hasSurveys": !page.surveys.isEmpty, "loadFailed": page.loadFailed,
      "needsProfile": page.surveysNeedProfile,
    ])
  }

  /// The category and sort links of the list, the current ones marked.
  public static func surveyFilters(category: SurveyCategory?, sort: SurveySort) -> [String: Any] {
    func href(_ category: SurveyCategory?, _ sort: SurveySort) -> String {
      var query = ["sort=\(sort.rawValue)"]
      if let category { query.insert("category=\(category.rawValue)", at: 0) }
      return "/surveys?" + query.joined(separator: "&")
    }
    let categories: [[String: Any]] =
      [["title": "すべて", "href": href(nil, sort), "selected": category == nil]]
      + SurveyCategory.allCases.map { each in
        ["title": each.title, "href": href(each, sort), "selected": category == each]
      }
    let sorts: [[String: Any]] = SurveySort.allCases.map { each in
      ["title": each.title, "href": href(category, each), "selected": sort == each]
    }
    return ["categories": categories, "sorts": sorts]
  }

  /// One survey's card in the list; a closed one (受付終了) says so instead of its places left.
  public static func surveyRow(_ survey: Survey, answered: Bool, closed: Bool = false, isNew: Bool = false) -> [String: Any] {
    var row = summary(survey)
    row["answered"] = answered
    row["isNew"] = isNew
    row["closed"] = closed
    if !closed, survey.isNearlyFull, let remaining = survey.remainingPlaces { row["fewLeft"] = remaining }
    return row
  }

  /// 受付終了: the survey takes no more answers, and why; a screening passed before it closed was
  /// paid its consolation.
  public static func surveyClosed(_ state: AppFeature.State, survey: Survey, _ closure: Survey.Closure) -> [String: Any] {
    var body: [String: Any] = ["survey": summary(survey), "full": closure == .full, "total": "\(state.progress.ledger.balance)"]
    if let answered = state.progress.answer(to: survey.id), answered.outcome == .closed {
      body["consolation"] = "\(answered.reward)"
    }
    return layout(state, body: body)
  }

  /// 対象外: why a survey is not for the user, in words that never say which condition failed.
  public static func surveyIneligible(_ state: AppFeature.State, survey: Survey, _ eligibility: Eligibility) -> [String: Any] {
    layout(state, body: ["survey": summary(survey), "needsProfile": eligibility == .needsProfile, "bonus": "\(Profile.bonus)"])
  }

  /// 今回は対象外でした: the screening did not qualify; its consolation and the balance.
  public static func screenedOut(_ state: AppFeature.State, survey: Survey, answered: UserProgress.AnsweredSurvey) -> [String: Any] {
    layout(state, body: [
      "survey": summary(survey), "consolation": "\(answered.reward)", "answeredAt": date(answered.date),
      "total": "\(state.progress.ledger.balance)",
    ])
  }

  /// Answers recorded invalid: why, in plain words, and that nothing was paid.
  public static func answerInvalid(_ state: AppFeature.State, survey: Survey, answered: UserProgress.AnsweredSurvey) -> [String: Any] {
    layout(state, body: ["survey": summary(survey), "answeredAt": date(answered.date)])
  }

  /// A survey's page; with the draft and each question's error when its answers were refused.
  /// A survey with a screening asks that first, until it has qualified.
  public static func survey(_ state: AppFeature.State, survey: Survey, csrf: String, fragments: PageRenderer) -> [String: Any] {
    let page = state.surveyDetailPage ?? SurveyDetail.Page(surveyID: survey.id)
    let screening = SurveyDetail.State(progress: state.progress, page: { var page = page; page.survey = survey; return page }()).isScreening
      ? survey.screening : nil
    // Its own questions: the page the user is on, as the survey feature made it for them.
    let pages = survey.pages
    let pageIndex = screening == nil ? min(page.pageIndex, pages.count - 1) : 0
    // The survey feature made the page where something decides it (conditions, an order); else
    // its questions as they are.
    let questions = screening?.questions ?? (survey.pagesPerRespondent ? page.questions : pages[pageIndex])
    let numbered = screening == nil ? pages.prefix(pageIndex).reduce(0) { $0 + $1.count } : 0
    let isLastPage = screening != nil || pageIndex == pages.count - 1
    var body: [String: Any] = [
      "csrf": csrf,
      "survey": summary(survey),
      "action": "/surveys/\(survey.id.rawValue)/" + (screening == nil ? "answers" : "screening"),
      "hasErrors": !page.errors.isEmpty,
      "errorCount": page.errors.count,
      "isScreening": screening != nil,
      "consolation": screening.map { "\($0.consolation)" } ?? false,
      "hasScreening": survey.screening != nil,
      // Sent back once for review: the answers are kept, the page says so, politely.
      "reviewNotice": screening == nil && state.progress.reviewRequested.contains(survey.id) && state.progress.answer(to: survey.id) == nil,
      // Each rendered whole (`fragments`), with what the list of errors above them shows.
      "questions": zip(questions, fragments.surveyQuestions(
        Array(questions), of: survey.id, numberedFrom: numbered + 1, draft: page.draft, errors: page.errors
      )).map { question, rendered -> [String: Any] in
        ["html": rendered.html, "number": rendered.number, "fieldID": fieldID(question), "error": page.errors[question.id]?.message ?? false]
      },
      "isLastPage": isLastPage,
    ]
    if screening == nil, pages.count > 1 {
      body["pages"] = ["index": pageIndex, "number": pageIndex + 1, "count": pages.count, "hasPrevious": pageIndex > 0]
    }
    if let answered = state.progress.answer(to: survey.id) {
      body["answered"] = ["date": date(answered.date), "reward": "\(answered.reward)", "href": "/surveys/\(survey.id.rawValue)/complete"]
    }
    return layout(state, body: body)
  }

  /// What answering a survey paid, the balance, and today's missions.
  public static func complete(_ state: AppFeature.State, survey: Survey, answered: UserProgress.AnsweredSurvey) -> [String: Any] {
    let balance = state.progress.ledger.balance
    return layout(state, body: [
      "survey": summary(survey),
      "earned": "\(answered.reward)",
      "answeredAt": date(answered.date),
      "total": "\(balance)",
      "yen": PointAmount.grouped(balance.yen),
      "missions": missions(state.missions.missions),
      "claimable": state.missions.missions.contains(where: \.isClaimable),
    ])
  }

  private static func summary(_ survey: Survey) -> [String: Any] {
    var row: [String: Any] = [
      "id": survey.id.rawValue, "href": "/surveys/\(survey.id.rawValue)",
      "title": survey.title, "description": survey.description, "category": survey.category.title,
      "reward": "\(survey.reward)", "minutes": survey.estimatedMinutes,
      "efficiency": String(format: "%.1f", survey.rewardEfficiency()),
      "questionCount": survey.questions.count + (survey.screening?.questions.count ?? 0), "version": survey.version,
      "hasScreening": survey.screening != nil,
    ]
    if let expiresAt = survey.expiresAt { row["expires"] = day(expiresAt - 1) }
    return row
  }

  /// The id of a question's fieldset, which the list of errors links to.
  private static func fieldID(_ question: SurveyQuestion) -> String { "q-\(question.id.rawValue)" }

  /// One question's context for `survey-question`: its kind's inputs, the user's answers to it
  /// checked or filled in, the error it was refused with.
  static func question(_ question: SurveyQuestion, number: Int, draft: [String], error: AnswerError?) -> [String: Any] {
    let name = "q[\(question.id.rawValue)]"
    var context: [String: Any] = ["number": number, "text": question.text, "name": name, "fieldID": fieldID(question)]
    if let error { context["error"] = error.message }
    func choices(_ choices: [SurveyQuestion.Choice]) -> [[String: Any]] {
      choices.map { choice in
        ["value": choice.id.rawValue, "label": choice.label, "checked": draft.contains(choice.id.rawValue),
         "inputID": "q-\(question.id.rawValue)-\(choice.id.rawValue)"]
      }
    }
    switch question.kind {
    case let .singleChoice(options):
      context["isSingle"] = true
      context["choices"] = choices(options)
      context["hint"] = "1つ選んでください"
    case let .multipleChoice(options, minPicks, maxPicks):
      context["isMultiple"] = true
      context["choices"] = choices(options)
      context["hint"] = minPicks == 0 ? "\(maxPicks)つまで（任意）" : minPicks == maxPicks ? "\(maxPicks)つ選んでください" : "\(minPicks)〜\(maxPicks)つ選んでください"
    case let .freeText(required, maxLength):
      context["isText"] = true
      context["draftText"] = draft.first ?? ""
      context["maxLength"] = maxLength
      context["hint"] = required ? "\(maxLength)文字以内" : "\(maxLength)文字以内（任意）"
    case let .grid(rows, scale):
      context["isGrid"] = true
      context["hint"] = "それぞれの行で1つずつ選んでください"
      context["scaleCount"] = scale.count
      let missing: Set<String> = if case let .rowsUnanswered(labels) = error { Set(labels) } else { [] }
      context["rows"] = rows.map { row -> [String: Any] in
        let rowID = "q-\(question.id.rawValue)-\(row.id)"
        return [
          "label": row.label, "fieldID": rowID, "missing": missing.contains(row.label), "optional": row.isOptional == true,
          "choices": scale.map { choice -> [String: Any] in
            let value = SurveyQuestion.gridInput(row: row.id, choice: choice.id.rawValue)
            return ["name": "q[\(question.id.rawValue)][\(row.id)]", "value": choice.id.rawValue, "label": choice.label,
                    "checked": draft.contains(value), "inputID": "\(rowID)-\(choice.id.rawValue)"]
          },
        ]
      }
    case let .number(min, max, unit):
      context["isNumber"] = true
      context["draftText"] = draft.first ?? ""
      context["unit"] = unit ?? false
      context["min"] = min
      context["hint"] = "\(min)〜\(max)の数字（半角・全角どちらでも）"
    case let .longText(minLength, maxLength):
      context["isText"] = true
      context["draftText"] = draft.first ?? ""
      context["maxLength"] = maxLength
      context["hint"] = "\(minLength)〜\(maxLength)文字"
    case let .attentionCheck(options, _):
      context["isSingle"] = true
      context["choices"] = choices(options)
      context["hint"] = "1つ選んでください"
    case .rating:
      context["isRating"] = true
      context["ratings"] = (1...5).map { value in
        ["value": value, "checked": draft.first == "\(value)", "inputID": "q-\(question.id.rawValue)-\(value)"] as [String: Any]
      }
      context["hint"] = "1（低い）〜5（高い）"
    }
    return context
  }

  static func missions(_ missions: [DailyMission]) -> [[String: Any]] {
    missions.map { mission in
      [
        "kind": mission.kind.rawValue, "title": mission.kind.title, "bonus": "\(mission.kind.bonus)",
        "progress": "\(min(mission.progress, mission.kind.target))/\(mission.kind.target)",
        "percent": percent(mission.progress, of: mission.kind.target),
        "completed": mission.isCompleted, "claimed": mission.isClaimed, "claimable": mission.isClaimable,
        "action": "/missions/\(mission.kind.rawValue)/claim",
      ]
    }
  }
}
