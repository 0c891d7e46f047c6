/// One difference between a survey's live version and the edit about to be published, in words an
/// operator reads, with how many of the responses so far it touches.
public struct SurveyChange: Equatable, Sendable {
  public let description: String
  /// The responses so far it touches: those that answered what goes, the completes a changed
  /// question was asked of, the picks of an option removed; `nil`: none to count (a quota).
  public let touched: Int?

  public init(_ description: String, touched: Int?) {
    self.description = description
    self.touched = touched
  }
}

extension Survey {
  /// What publishing `next` over this version changes: questions, options and rows, conditions,
  /// the order, the quota and its cells. `counts` are this survey's responses so far.
  public func changes(to next: Survey, counts: ResponseCounts) -> [SurveyChange] {
    var changes: [SurveyChange] = []
    let completes = counts.completes
    let before = Dictionary(allQuestions.map { ($0.id, $0) }) { first, _ in first }
    let after = Dictionary(next.allQuestions.map { ($0.id, $0) }) { first, _ in first }
    func picks(_ key: String, _ choice: String) -> Int { counts.picks[key]?[choice] ?? 0 }
    for question in allQuestions where after[question.id] == nil {
      changes.append(SurveyChange("\(code(of: question.id))「\(question.text)」を削除（これまでの回答は出力に残ります）", touched: completes))
    }
    for question in next.allQuestions {
      let name = next.code(of: question.id)
      guard let old = before[question.id] else {
        changes.append(SurveyChange("\(name)「\(question.text)」を追加（これまでの回答者には表示されていません）", touched: completes))
        continue
      }
      if old.text != question.text { changes.append(SurveyChange("\(name)の設問文を「\(old.text)」から「\(question.text)」に変更", touched: completes)) }
      if Self.kindName(old.kind) != Self.kindName(question.kind) {
        changes.append(SurveyChange("\(name)の種類を\(Self.kindName(old.kind))から\(Self.kindName(question.kind))に変更", touched: completes))
      }
      let (oldChoices, newChoices) = (old.choices, question.choices)
      for choice in oldChoices where !newChoices.contains(where: { $0.id == choice.id }) {
        let picked: Int? = if case .grid = old.kind { nil } else { picks(question.id.rawValue, choice.id.rawValue) }
        changes.append(SurveyChange("\(name)の選択肢「\(choice.label)」を削除", touched: picked ?? completes))
      }
      for choice in newChoices where !oldChoices.contains(where: { $0.id == choice.id }) {
        changes.append(SurveyChange("\(name)に選択肢「\(choice.label)」を追加（これまでの回答者には表示されていません）", touched: completes))
      }
      if case let .grid(oldRows, _) = old.kind, case let .grid(newRows, _) = question.kind {
        for row in oldRows where !newRows.contains(where: { $0.id == row.id }) {
          let answered = counts.picks["\(question.id.rawValue)/\(row.id)"]?.values.reduce(0, +) ?? 0
          changes.append(SurveyChange("\(name)の行「\(row.label)」を削除", touched: answered))
        }
        for row in newRows where !oldRows.contains(where: { $0.id == row.id }) {
          changes.append(SurveyChange("\(name)に行「\(row.label)」を追加", touched: completes))
        }
      }
      if old.condition != question.condition {
        let text = question.condition == nil ? "表示条件を外す（全員に表示）" : old.condition == nil ? "表示条件を付ける" : "表示条件を変更"
        changes.append(SurveyChange("\(name)の\(text)", touched: completes))
      }
      if old.shufflesChoices != question.shufflesChoices {
        changes.append(SurveyChange("\(name)の選択肢の順番を\(question.shufflesChoices ? "回答者ごとにランダムに" : "固定に")", touched: nil))
      }
    }
    if shufflesQuestions != next.shufflesQuestions {
      changes.append(SurveyChange("設問の順番を\(next.shufflesQuestions ? "回答者ごとにランダムに" : "固定に")", touched: nil))
    }
    if quota != next.quota {
      let describe = { (quota: Quota?) in quota.map { "\($0.target)件" } ?? "上限なし" }
      changes.append(SurveyChange("回収目標を\(describe(quota))から\(describe(next.quota))に変更", touched: nil))
    }
    if cells != next.cells {
      changes.append(SurveyChange(next.cells == nil ? "割付をなくす" : cells == nil ? "割付を設ける" : "割付を変更", touched: completes))
    }
    return changes
  }

  private static func kindName(_ kind: SurveyQuestion.Kind) -> String {
    switch kind {
    case .singleChoice: "単一選択"
    case .multipleChoice: "複数選択"
    case .freeText: "自由記述（短文）"
    case .longText: "自由記述（長文）"
    case .rating: "5段階評価"
    case .number: "数値"
    case .grid: "マトリクス"
    case .attentionCheck: "注意確認"
    }
  }
}
