import Foundation
import Hummingbird
import PointApp

extension Pages {
  /// What every console page shows around its body: who is signed in, as what, and the menu of
  /// the parts their role reaches (once their second factor is given).
  static func adminLayout(_ state: OperatorFeature.State, csrf: String, body: [String: Any]) -> [String: Any] {
    var context = body
    if let email = state.signedIn {
      context["operator"] = state.role.map { "\(email)（\($0.title)）" } ?? email
      context["csrf"] = csrf
    }
    if let role = state.role, case .given? = state.secondFactor {
      let current: ConsoleArea? =
        switch state.destination {
        case .surveys?, .editor?, .preview?, .dashboard?, .export?, .exportPage?, .exportManifest?: .surveys
        case .users?, .user?: .desk
        case .audit?: .audit
        case .operators?: .operators
        default: nil
        }
      let tabs: [(ConsoleArea, String, String)] = [
        (.surveys, "/admin/surveys", "アンケート"), (.desk, "/admin/users", "ユーザー"), (.audit, "/admin/audit", "監査ログ"),
        (.operators, "/admin/operators", "運営者"),
      ]
      context["tabs"] = tabs.filter { role.may($0.0) }.map { area, href, label in
        ["href": href, "label": label, "current": area == current] as [String: Any]
      }
      context["hasTabs"] = true
    }
    return context
  }

  /// An error of the console: a part the role does not reach says so.
  static func consoleError(_ status: HTTPResponse.Status) -> [String: Any] {
    guard status == .forbidden else { return error(status).merging(["back": "/admin", "backLabel": "運営コンソールへ戻る"]) { $1 } }
    return [
      "status": 403, "title": "この画面を開く権限がありません",
      "message": "あなたの役割ではこの画面や操作は使えません。必要な場合は管理者に役割の変更を依頼してください。",
      "back": "/admin", "backLabel": "運営コンソールへ戻る",
    ]
  }

  /// Whether `page` is where `revealed` is shown (and so forgotten after it).
  static func shows(_ revealed: OperatorFeature.Revealed, on page: OperatorNavigation.Page) -> Bool {
    switch revealed {
    case .recoveryCodes: page == .recoveryCodes
    case .initialPassword: page == .operators
    }
  }

  /// The second factor's code: after the password, or asked again before `next`.
  static func adminSecondFactor(_ state: OperatorFeature.State, csrf: String) -> [String: Any] {
    var body: [String: Any] = ["csrf": csrf, "isAgain": state.secondFactor.map { if case .given = $0 { true } else { false } } ?? false]
    if let next = state.next { body["next"] = next }
    if let refusal = state.refusal { body["refusal"] = refusal == .wrongCredentials ? "確認コードが正しくありません。" : refusal.message }
    return adminLayout(state, csrf: csrf, body: body)
  }

  /// Enrolling an authenticator: the QR code, the secret to type, the URI; a code to confirm.
  static func adminEnrolment(_ state: OperatorFeature.State, csrf: String) -> [String: Any] {
    var body: [String: Any] = ["csrf": csrf]
    if let enrolment = state.enrolment {
      body["secret"] = Base32.grouped(enrolment.secret)
      body["uri"] = enrolment.uri
      if let code = QRCode(Data(enrolment.uri.utf8)) { body["qr"] = code.dataURL() }
    }
    if let refusal = state.refusal { body["refusal"] = refusal == .wrongCredentials ? "確認コードが正しくありません。認証アプリに表示されている6桁を入力してください。" : refusal.message }
    return adminLayout(state, csrf: csrf, body: body)
  }

  /// The recovery codes, shown once.
  static func adminRecoveryCodes(_ state: OperatorFeature.State, csrf: String) -> [String: Any] {
    var body: [String: Any] = ["csrf": csrf]
    if case let .recoveryCodes(codes)? = state.revealed {
      body["codes"] = codes.map(\.value)
      body["hasCodes"] = true
    }
    return adminLayout(state, csrf: csrf, body: body)
  }

  /// `/admin/operators`: every operator with a form for each change; a new one's password once.
  static func adminOperators(_ state: OperatorFeature.State, csrf: String) -> [String: Any] {
    let roles = OperatorRole.allCases
    let members: [[String: Any]] = state.team.members.map { member in
      [
        "id": member.id, "email": member.email, "role": member.role.title, "disabled": member.disabled,
        "lastSignIn": member.lastSignIn.map(date) ?? "なし", "enrolled": member.enrolled ? "登録済み" : "未登録",
        "isSelf": member.email == state.signedIn, "csrf": csrf,
        "roles": roles.map { ["value": $0.rawValue, "title": $0.title, "selected": $0 == member.role] as [String: Any] },
      ]
    }
    var body: [String: Any] = [
      "csrf": csrf, "members": members, "count": members.count,
      "roles": roles.map { ["value": $0.rawValue, "title": $0.title] },
    ]
    if case let .initialPassword(email, password)? = state.revealed {
      body["issued"] = ["email": email, "password": password.value]
    }
    switch state.team.outcome {
    case let .done(notice)?: body["done"] = notice.message
    case let .refused(error)?: body["refused"] = error.message
    case nil: break
    }
    return adminLayout(state, csrf: csrf, body: body)
  }

  /// The console's sign-in form; after a refused sign-in, why.
  static func adminLogin(_ state: OperatorFeature.State, csrf: String) -> [String: Any] {
    var body: [String: Any] = ["csrf": csrf]
    if let refusal = state.refusal { body["refusal"] = refusal.message }
    return adminLayout(state, csrf: csrf, body: body)
  }

  /// The surveys never published (下書き), then every survey with its state now: buttons to edit,
  /// duplicate and close.
  static func adminSurveys(_ state: OperatorFeature.State, csrf: String) -> [String: Any] {
    let now = state.now ?? .distantPast
    let published = Set(state.surveys.map(\.id))
    let editing = Set(state.drafts.map(\.id))
    let drafts: [[String: Any]] = state.drafts.filter { !published.contains($0.id) }.map { draft in
      [
        "id": draft.id.rawValue, "title": draft.form.title.isEmpty ? "（無題）" : draft.form.title,
        "category": SurveyCategory(rawValue: draft.form.category)?.title ?? "", "status": "下書き", "statusClass": "draft",
        "saved": date(draft.savedAt), "isDraft": true,
      ]
    }
    let rows: [[String: Any]] = state.surveys.map { survey in
      let status = survey.status(at: now)
      var row: [String: Any] = [
        "id": survey.id.rawValue, "title": survey.title, "category": survey.category.title,
        "status": status.title, "statusClass": status.rawValue, "version": survey.version,
        "reward": "\(survey.reward)", "published": date(survey.publishedAt),
        "deadline": survey.expiresAt.map(date) ?? "なし",
        "closable": status == .open || status == .scheduled,
        "hasDraft": editing.contains(survey.id),
      ]
      if let quota = survey.quota {
        row["quota"] = "\(survey.placesTaken + quota.collected) / \(quota.target)"
        row["fill"] = min(100, (survey.placesTaken + quota.collected) * 100 / max(1, quota.target))
      }
      return row
    }
    let filter = state.surveyListFilter
    let listed = (drafts + rows).filter { row in
      filter.includes(id: row["id"] as? String ?? "", title: row["title"] as? String ?? "", status: row["statusClass"] as? String ?? "")
    }
    return adminLayout(state, csrf: csrf, body: [
      "surveys": listed, "count": listed.count, "total": drafts.count + rows.count, "isNarrowed": listed.count != drafts.count + rows.count,
      "query": filter.query, "isEmpty": listed.isEmpty,
      "states": SurveyListFilter.statuses.map { ["value": $0.value, "title": $0.title, "selected": $0.value == filter.status] as [String: Any] },
    ])
  }

  /// The editor: the draft's fields as typed, each with its mistake once the draft was checked.
  static func adminEditor(_ state: OperatorFeature.State, csrf: String) -> [String: Any] {
    guard let editor = state.editor else { return adminLayout(state, csrf: csrf, body: [:]) }
    let form = editor.draft.form
    let errors = editor.errors
    /// A text input: `kind` `text` (short), `long`, `numeric` (digits) or `datetime`.
    func field(_ name: String, _ value: String, _ label: String, hint: String? = nil, kind: String = "text") -> [String: Any] {
      var field: [String: Any] = [
        "name": name, "value": value, "label": label, "fieldID": "f-" + name.replacingOccurrences(of: ".", with: "-"),
        "isLong": kind == "long", "isNumeric": kind == "numeric", "isDatetime": kind == "datetime",
      ]
      if let hint { field["hint"] = hint }
      if let error = errors[name] { field["error"] = error }
      return field
    }
    let questions: [[String: Any]] = form.questions.enumerated().map { index, question in
      let prefix = "q.\(index)"
      var row: [String: Any] = [
        "index": index, "number": index + 1, "id": question.id, "kindTitle": question.kind.title, "kind": question.kind.rawValue,
        "isScreening": question.isScreening, "isOptional": !question.isRequired,
        "canMoveUp": index > 0, "canMoveDown": index < form.questions.count - 1,
        "text": field("\(prefix).text", question.text, "設問文", kind: "long"),
        "kinds": SurveyForm.Kind.allCases.map { ["value": $0.rawValue, "title": $0.title, "selected": $0 == question.kind] },
        "kindError": errors["\(prefix).kind"] ?? false,
      ]
      switch question.kind {
      case .single, .multiple, .attention, .grid:
        row["choices"] = field("\(prefix).choices", question.choices, question.kind == .grid ? "評価の段階（1行に1つ）" : "選択肢（1行に1つ）", hint: choicesHint(question), kind: "long")
      case .text, .longText, .rating, .number: break
      }
      if question.kind == .grid {
        row["rows"] = field("\(prefix).rows", question.rows, "行（1行に1つ）", hint: "回答を任意にする行は、末尾に「（任意）」を付けます。", kind: "long")
      }
      if question.kind == .multiple {
        row["numbers"] = [
          field("\(prefix).minPicks", question.minPicks, "選べる数の下限", hint: "0で任意回答", kind: "numeric"),
          field("\(prefix).maxPicks", question.maxPicks, "選べる数の上限", kind: "numeric"),
        ]
      }
      if question.kind == .single || question.kind == .multiple { row["canShuffle"] = true; row["shuffles"] = question.shuffle == true }
      if !question.isScreening {
        // 表示条件: the questions before it, by id, to name in its rules.
        let earlier = form.questions.prefix(index).enumerated().map { number, earlier in "\(earlier.id)（設問\(number + 1)）" }
        row["condition"] = [
          "joins": DisplayCondition.Join.allCases.map { ["value": $0.rawValue, "title": $0.title, "selected": $0.rawValue == (question.join ?? "all")] },
          "field": field(
            "\(prefix).conditions", question.conditions ?? "", "表示条件（1行に1つ）",
            hint: "空欄なら全員に表示します。例：「q1: ほとんど食べない、たまに食べる」「q4: 3〜5」「q2 味: 満足」。"
              + (earlier.isEmpty ? "この設問より前に設問がありません。" : "使える設問：" + earlier.joined(separator: "、")),
            kind: "long"
          ),
          "open": !(question.conditions ?? "").isEmpty || errors["\(prefix).conditions"] != nil,
        ] as [String: Any]
      }
      if question.kind == .text { row["canBeOptional"] = true }
      if question.kind == .text { row["numbers"] = [field("\(prefix).maxLength", question.maxLength, "最大文字数", kind: "numeric")] }
      if question.kind == .longText {
        row["numbers"] = [
          field("\(prefix).minLength", question.minLength, "最小文字数", kind: "numeric"),
          field("\(prefix).maxLength", question.maxLength, "最大文字数", kind: "numeric"),
        ]
      }
      if question.kind == .number {
        row["numbers"] = [
          field("\(prefix).min", question.min, "最小値", kind: "numeric"), field("\(prefix).max", question.max, "最大値", kind: "numeric"),
          field("\(prefix).unit", question.unit, "単位", hint: "例：分、千円（なくても可）"),
        ]
      }
      return row
    }
    let regions: [[String: Any]] = Prefecture.Region.allCases.map { region in
      ["title": region.title, "prefectures": Prefecture.allCases.filter { $0.region == region }.map { prefecture in
        ["value": prefecture.rawValue, "title": prefecture.title, "checked": form.prefectures.contains(prefecture.rawValue)] as [String: Any]
      }]
    }
    // The summary lists the mistakes in the order of the form.
    let order = ["title", "description", "category", "reward", "minutes", "publishAt", "deadline", "quota", "cellDimensions", "cells",
                 "minAge", "maxAge", "genders", "prefectures", "minSecondsPerQuestion", "consolation", "questions"]
    let questionOrder = ["kind", "text", "choices", "rows", "minPicks", "maxPicks", "minLength", "maxLength", "min", "max", "unit", "conditions"]
    func rank(_ field: String) -> Int {
      let parts = field.split(separator: ".")
      guard parts.count == 3, let index = Int(parts[1]) else { return order.firstIndex(of: field) ?? order.count }
      return order.count + 1 + index * questionOrder.count + (questionOrder.firstIndex(of: String(parts[2])) ?? 0)
    }
    let summary = errors.byField.sorted { rank($0.key) < rank($1.key) }.map { error -> [String: Any] in
      let parts = error.key.split(separator: ".")
      let label = parts.count == 3 ? "設問\(Int(parts[1]).map { $0 + 1 } ?? 0)：" : ""
      return ["href": "#f-" + error.key.replacingOccurrences(of: ".", with: "-"), "message": label + error.value]
    }
    var body: [String: Any] = [
      "csrf": csrf, "id": editor.id.rawValue, "isNew": editor.published == nil,
      "heading": editor.published == nil ? "新しいアンケート" : "アンケートを編集",
      "errors": summary, "hasErrors": !summary.isEmpty, "errorCount": summary.count,
      "title": field("title", form.title, "タイトル", hint: "80文字以内"), "description": field("description", form.description, "説明", hint: "400文字以内", kind: "long"),
      "categories": SurveyCategory.allCases.map { ["value": $0.rawValue, "title": $0.title, "selected": $0.rawValue == form.category] },
      "categoryError": errors["category"] ?? false,
      "reward": field("reward", form.reward, "報酬（ポイント）", hint: "10pt = 1円相当", kind: "numeric"), "minutes": field("minutes", form.minutes, "所要時間（分）", hint: "回答にかかる目安", kind: "numeric"),
      "publishAt": field("publishAt", form.publishAt, "公開日時", hint: "日本時間。未来にすると公開予定になります", kind: "datetime"),
      "deadline": field("deadline", form.deadline, "締切日時", hint: "日本時間。空欄で締切なし", kind: "datetime"),
      "quota": field("quota", form.quota, "回収目標（件）", hint: "空欄で上限なし。達すると満了になります", kind: "numeric"),
      "minAge": field("minAge", form.minAge, "年齢の下限", hint: "空欄で指定なし", kind: "numeric"),
      "maxAge": field("maxAge", form.maxAge, "年齢の上限", hint: "空欄で指定なし", kind: "numeric"),
      "genders": Gender.allCases.map { ["value": $0.rawValue, "title": $0.title, "checked": form.genders.contains($0.rawValue)] },
      "gendersError": errors["genders"] ?? false,
      "regions": regions, "prefecturesError": errors["prefectures"] ?? false,
      "prefectureCount": form.prefectures.count,
      "minSeconds": field("minSecondsPerQuestion", form.minSecondsPerQuestion, "1問あたりの最短回答時間（秒）", hint: "これより速い回答は確認をお願いします。空欄で確認しません", kind: "numeric"),
      "consolation": field("consolation", form.consolation, "対象外のお礼（ポイント）", hint: "事前調査で対象外になった人に1回だけ支払います", kind: "numeric"),
      "hasScreening": form.questions.contains(where: \.isScreening),
      "shuffleQuestions": form.shuffleQuestions == true,
      "cellDimensions": ([("gender", "性別"), ("ageBand", "年代")] + form.questions.filter { $0.isScreening && $0.kind == .single }.map { ("s:\($0.id)", "事前調査 \($0.id)：\($0.text)") })
        .map { value, title in ["value": value, "title": title, "checked": (form.cellDimensions ?? []).contains(value)] as [String: Any] },
      "cellDimensionsError": errors["cellDimensions"] ?? false,
      "cells": field("cells", form.cells ?? "", "セルと上限（1行に1つ）", hint: "例：「女性 × 20代 = 50」。軸の順に値を「×」でつなぎ、「=」のあとに上限件数。年代は「20代」、事前調査は選択肢のとおり。空欄なら割付なし", kind: "long"),
      "questions": questions, "questionsError": errors["questions"] ?? false,
      "newKinds": SurveyForm.Kind.allCases.map { ["value": $0.rawValue, "title": $0.title] },
      "saved": date(editor.draft.savedAt),
    ]
    if let published = editor.published {
      // What publishing this form changes in the live version, each with the responses it touches.
      let changes: [[String: Any]] = (editor.changes ?? []).map { change in
        var row: [String: Any] = ["description": change.description]
        if let touched = change.touched { row["touched"] = "これまでの回答\(touched)件に関わります" }
        return row
      }
      body["published"] = [
        "version": published.version, "next": published.version + 1, "status": published.status(at: state.now ?? editor.draft.savedAt).title,
        "changes": changes, "hasChanges": !changes.isEmpty, "checkable": editor.changes != nil,
      ] as [String: Any]
    }
    return adminLayout(state, csrf: csrf, body: body)
  }

  /// A survey's responses counted: against its quota, by outcome, answering times, completes per
  /// day (an SVG chart drawn here, no script), the picks of each choice question; and the export.
  static func adminDashboard(_ state: OperatorFeature.State, csrf: String) -> [String: Any] {
    guard let survey = state.survey else { return adminLayout(state, csrf: csrf, body: [:]) }
    let counts = state.counts
    let now = state.now ?? .distantPast
    let completes = counts.completes
    var facts: [[String: Any]] = []
    if let quota = survey.quota {
      // Completes on other channels count toward the target; said only where there are some.
      facts.append(["label": "完了", "value": "\(completes)件 / 目標\(quota.target)件" + (quota.collected > 0 ? "（ほかの経路で\(quota.collected)件）" : "")])
      facts.append(["label": "残り", "value": "\(survey.remainingPlaces ?? 0)件"])
    } else {
      facts.append(["label": "完了", "value": "\(completes)件（上限なし）"])
    }
    if let cells = survey.cells {
      // Each quota cell: its places taken (completes here) against its limit.
      for cell in cells.cells {
        let taken = survey.cellsTaken[cell.name] ?? 0
        facts.append(["label": "割付 " + cells.label(of: cell, in: survey), "value": "\(taken)件 / 上限\(cell.limit)件" + (taken >= cell.limit ? "（満了）" : "")])
      }
    }
    for outcome in [SurveyResponse.Outcome.screenedOut, .invalid, .closed] {
      facts.append(["label": outcome.title, "value": "\(counts.byOutcome[outcome] ?? 0)件"])
    }
    facts.append(["label": "確認依頼のあと", "value": "\(counts.reviewed)件"])
    facts.append(["label": "回答時間（中央値）", "value": counts.secondsPercentile(0.5).map(duration) ?? "—"])
    facts.append(["label": "回答時間（速い10%）", "value": counts.secondsPercentile(0.1).map(duration) ?? "—"])
    if let invitations = state.invitations {
      let stage = invitations.finished.map { "完了 \(date($0))" } ?? "送信中"
      facts.append(["label": "招待メール", "value": "\(invitations.sent)通（会員\(invitations.examined)人を確認・\(stage)）"])
    }

    // The last 14 days to today, a bar each.
    let today = Day(now, in: .tokyo)
    let days = (0..<14).map { Day(ordinal: today.ordinal - 13 + $0) }
    let perDay = days.map { counts.completesByDay[$0.iso] ?? 0 }
    let highest = max(1, perDay.max() ?? 1)
    let bars: [[String: Any]] = zip(days, perDay).enumerated().map { index, entry in
      let height = Double(entry.1) / Double(highest) * 100
      return [
        "x": index * 20 + 2, "y": String(format: "%.1f", 110 - height), "height": String(format: "%.1f", height),
        "count": entry.1, "label": String(entry.0.iso.suffix(5)).replacingOccurrences(of: "-", with: "/"),
        "labelX": index * 20 + 10, "showLabel": index % 2 == 1,
      ]
    }

    var distributions: [[String: Any]] = []
    func rows(_ choices: [SurveyQuestion.Choice], key: String) -> [[String: Any]] {
      let picks = counts.picks[key] ?? [:]
      return choices.map { choice in
        let count = picks[choice.id.rawValue] ?? 0
        return ["label": choice.label, "count": count, "percent": completes == 0 ? 0 : count * 100 / completes]
      }
    }
    for (index, question) in survey.questions.enumerated() {
      switch question.kind {
      case let .singleChoice(choices), let .multipleChoice(choices, _, _), let .attentionCheck(choices, _):
        distributions.append(["title": "Q\(index + 1) \(question.text)", "rows": rows(choices, key: question.id.rawValue)])
      case let .grid(gridRows, scale):
        for row in gridRows {
          distributions.append(["title": "Q\(index + 1) \(question.text)：\(row.label)", "rows": rows(scale, key: "\(question.id.rawValue)/\(row.id)")])
        }
      case .freeText, .longText, .rating, .number: break
      }
    }
    let status = survey.status(at: now)
    return adminLayout(state, csrf: csrf, body: [
      "id": survey.id.rawValue, "title": survey.title, "version": survey.version, "status": status.title, "statusClass": status.rawValue,
      "facts": facts, "bars": bars, "chartTotal": perDay.reduce(0, +), "highest": highest,
      "distributions": distributions, "hasDistributions": !distributions.isEmpty,
      "outcomes": SurveyResponse.Outcome.allCases.map { ["value": $0.rawValue, "title": $0.title] },
    ])
  }

  /// Seconds as a person reads them: 95 → 1分35秒.
  static func duration(_ seconds: Int) -> String {
    seconds < 60 ? "\(seconds)秒" : "\(seconds / 60)分\(seconds % 60)秒"
  }

  private static func choicesHint(_ question: SurveyForm.Question) -> String {
    switch question.kind {
    case .attention: "正解の選択肢の行頭に「*」を付けます。"
    case .grid: "例：満足、やや満足、どちらともいえない（1行に1つ）"
    default: question.isScreening ? "対象となる選択肢の行頭に「*」を付けます。" : "事前調査にするときは、対象となる選択肢の行頭に「*」を付けます。"
    }
  }

  /// The page users get from the draft, exactly (the users' template and its context), with a bar
  /// above it to go back to the editor or publish.
  static func adminPreview(_ state: OperatorFeature.State, csrf: String, fragments: PageRenderer) -> [String: Any] {
    guard let editor = state.editor, case let .success(survey) = editor.survey, let preview = state.preview else { return [:] }
    var user = AppFeature.State()
    (user.progress, user.draft, user.surveyDetailPage) = (preview.progress, preview.draft, preview.page)
    var context = Pages.survey(user, survey: survey, csrf: "", fragments: fragments)
    // Its pages are walked by GET, the answers of the other pages carried in the address.
    let onPage = Set(survey.pages[min(preview.page.pageIndex, survey.pages.count - 1)].map(\.id))
    let carried: [[String: String]] = (preview.draft?.answers ?? [:]).filter { !onPage.contains($0.key) }
      .sorted { $0.key.rawValue < $1.key.rawValue }
      .flatMap { question, inputs in
        inputs.map { input -> [String: String] in
          // A grid's row, kept as `<row>:<choice>`, goes back as `q[<question>][<row>]`.
          if let colon = input.firstIndex(of: ":"), case .grid? = survey.questions.first(where: { $0.id == question })?.kind {
            return ["name": "q[\(question.rawValue)][\(input[..<colon])]", "value": String(input[input.index(after: colon)...])]
          }
          return ["name": "q[\(question.rawValue)]", "value": input]
        }
      }
    context["preview"] = [
      "id": survey.id.rawValue, "csrf": csrf, "version": survey.version, "isUpdate": editor.published != nil,
      "hasScreening": survey.screening != nil, "showsMain": state.previewsMainQuestions, "carried": carried,
      "walks": (survey.screening == nil || state.previewsMainQuestions) && survey.pages.count > 1,
    ] as [String: Any]
    return context
  }

  /// A page of the audit log, newest first.
  static func adminAudit(_ state: OperatorFeature.State, csrf: String) -> [String: Any] {
    let entries: [[String: Any]] = state.auditPage.entries.map { entry in
      var row: [String: Any] = ["at": date(entry.at), "operator": entry.operatorEmail, "action": entry.action.title]
      // Only what the entry has: a sign-in has no subject, no before and after.
      if !entry.subject.isEmpty { row["subject"] = entry.subject }
      if let before = entry.before { row["before"] = before }
      if let after = entry.after { row["after"] = after }
      return row
    }
    var body: [String: Any] = ["entries": entries, "isEmpty": entries.isEmpty, "isFirst": state.auditCursor == nil]
    if let next = state.auditPage.next { body["next"] = next }
    return adminLayout(state, csrf: csrf, body: body)
  }
}

extension Pages {
  /// The support desk's search: the query again, and whether it named nobody.
  static func adminUsers(_ state: OperatorFeature.State, csrf: String) -> [String: Any] {
    var body: [String: Any] = [
      "query": state.desk.query, "notFound": state.desk.notFound, "csrf": csrf,
      "waiting": state.desk.waiting.map { request -> [String: Any] in
        var row: [String: Any] = [
          "id": request.id.rawValue.uuidString, "user": request.user, "points": (request.points > 0 ? "+" : "−") + "\(PointAmount.grouped(Int(request.points.magnitude)))pt",
          "reason": request.reason, "requestedBy": request.requestedBy, "requestedAt": date(request.requestedAt), "csrf": csrf,
          "isOwn": request.requestedBy == state.signedIn,
        ]
        if case let .approved(by, _) = request.status { row["approvedBy"] = by }
        return row
      },
    ]
    body["hasWaiting"] = !state.desk.waiting.isEmpty
    body["undelivered"] = state.desk.undelivered.map { mail -> [String: Any] in
      var row: [String: Any] = ["subject": mail.subject, "ended": date(mail.ended), "attempts": mail.attempts, "reply": mail.reply]
      if let user = mail.user { row["user"] = user }
      return row
    }
    body["hasUndelivered"] = !state.desk.undelivered.isEmpty
    body["exchanges"] = state.desk.exchanges.map { request -> [String: Any] in
      var row: [String: Any] = ["user": request.user, "number": request.number, "attempts": request.attempts, "unknown": request.answerUnknown]
      if let since = request.since { row["since"] = date(since) }
      return row
    }
    body["hasExchanges"] = !state.desk.exchanges.isEmpty
    switch state.desk.outcome {
    case let .done(notice)?: body["done"] = notice.message
    case let .refused(error)?: body["refused"] = error.message
    case nil: break
    }
    return adminLayout(state, csrf: csrf, body: body)
  }

  /// A user at the support desk: points, exchange requests, answers, the newest movements, and
  /// a form for each thing the desk can put right.
  static func adminUser(_ state: OperatorFeature.State, csrf: String) -> [String: Any] {
    guard let dossier = state.desk.dossier else { return adminLayout(state, csrf: csrf, body: [:]) }
    let progress = dossier.progress
    let now = state.now ?? Date()
    let titles = dossier.surveyTitles
    var body: [String: Any] = [
      "user": dossier.user, "csrf": csrf, "adjustmentID": state.desk.adjustmentID?.rawValue.uuidString ?? "",
      "balance": "\(progress.ledger.balance(at: now))", "credits": "\(progress.ledger.totalEarned)", "debits": "\(progress.ledger.totalSpent)",
      "rank": progress.rank(at: now).title,
      "expiring": progress.ledger.lots.expiring(after: now, months: 3).map { ["label": $0.endOf.label, "amount": "\($0.amount)"] },
      "answeredCount": progress.answeredCount, "completedCount": progress.completedCount, "invalidCount": progress.invalidCount,
      "exchanges": progress.exchanges.reversed().map { request -> [String: Any] in
        var row: [String: Any] = [
          "user": dossier.user, "csrf": csrf, "number": request.number, "points": "\(request.points)",
          "title": ExchangeOption(id: request.option)?.title ?? request.option.rawValue, "requestedAt": date(request.requestedAt),
          "status": SupportDeskService.status(request),
        ]
        switch request.status {
        case let .pending(attempts):
          row["statusKey"] = "pending"
          row["isPending"] = true
          if attempts > 0 { row["attempts"] = attempts }
        case let .fulfilled(code, _):
          row["statusKey"] = "fulfilled"
          row["code"] = code.masked
        case .failed:
          row["statusKey"] = "failed"
        }
        return row
      },
      "answers": progress.answered.sorted { ($0.value.date, $0.key.rawValue) > ($1.value.date, $1.key.rawValue) }.map { id, answer -> [String: Any] in
        let outcome = switch answer.outcome {
        case nil: "完了"
        case .screenedOut?: "対象外（事前調査）"
        case .invalid?: "無効"
        case .closed?: "受付終了"
        }
        let response = dossier.responses[id].map { response in
          ([response.outcome.title, "\(response.paid)"] + response.flags.map { "チェック：\($0.title)" })
            .joined(separator: "・")
        }
        return [
          "user": dossier.user, "csrf": csrf, "survey": id.rawValue, "title": titles[id] ?? id.rawValue, "date": date(answer.date),
          "reward": "\(answer.reward)", "answerCount": answer.answers.count, "isInvalid": answer.outcome == .invalid,
          "outcome": outcome, "response": response ?? "記録なし（回答データの記録より前の回答）",
        ]
      },
      "transactions": progress.ledger.recent.reversed().map { transaction($0, titles: titles) },
    ]
    if progress.answeredCount > progress.answered.count { body["archivedAnswers"] = progress.answeredCount - progress.answered.count }
    if progress.ledger.archivedCount > 0 { body["olderMovements"] = progress.ledger.archivedCount }
    switch state.desk.outcome {
    case let .done(notice)?: body["done"] = notice.message
    case let .refused(error)?: body["refused"] = error.message
    case nil: break
    }
    return adminLayout(state, csrf: csrf, body: body)
  }
}

extension Pages {
  /// What a download of a survey's responses holds before it is taken: the filters, the cut, the
  /// versions, and for each file its rows and SHA-256, with its manifest.
  static func adminExport(
    _ state: OperatorFeature.State, csrf: String, survey: Survey, digests: [(ResponseExport, ResponseExporter.Digest)]
  ) -> [String: Any] {
    let export = digests.first?.0 ?? ResponseExport(format: .csv)
    let base = "/admin/surveys/\(survey.id.rawValue)"
    let files: [[String: Any]] = digests.map { export, digest in
      [
        "format": export.format == .csv ? "CSV" : "JSON Lines", "name": ResponseExporter.fileName(survey, export),
        "href": "\(base)/responses.\(export.format.rawValue)?\(export.query)", "rows": digest.rows, "sha256": digest.sha256,
        "manifest": "\(base)/responses.\(export.format.rawValue).manifest.json?\(export.query)",
      ]
    }
    let versions = digests.first?.1.versions ?? [survey.version]
    return adminLayout(state, csrf: csrf, body: [
      "id": survey.id.rawValue, "title": survey.title,
      "versions": versions.map { "第\($0)版" }.joined(separator: "・"),
      "outcome": export.outcome?.title ?? "すべての結果",
      "days": export.from == nil && export.through == nil ? "すべての日" : "\(export.from?.iso ?? "最初")〜\(export.through?.iso ?? "最新")",
      "cut": export.cut.map(ResponseTable.format) ?? "", "rows": digests.first?.1.rows ?? 0,
      "files": files, "dashboard": base,
    ])
  }
}
