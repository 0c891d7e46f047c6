import ComposableTesting
import Dependencies
import Foundation
import PointApp
import Testing

/// A mistake an operator can make in the editor, and what the editor says at which field.
struct Mistake: Sendable, CustomTestStringConvertible {
  let field: String
  let message: String
  let make: @Sendable (inout SurveyForm) -> Void

  init(_ field: String, _ message: String, _ make: @escaping @Sendable (inout SurveyForm) -> Void) {
    (self.field, self.message, self.make) = (field, message, make)
  }

  var testDescription: String { "\(field): \(message)" }
}

/// The survey editor, a child of `OperatorFeature`: each mistake at its field, nothing published
/// with one; a new survey, a duplicate, an edit published as the next version, a schedule;
/// questions added, moved and removed; the preview; a draft discarded.
struct SurveyEditorFeatureTests {
  static let id = SurveyID("s-00000000")

  /// A survey with every kind of question, a screening first.
  static let valid: SurveyForm = {
    var form = SurveyForm()
    form.title = "朝ごはん調査"
    form.description = "毎朝の食事について"
    form.category = "food"
    form.reward = "40"
    form.minutes = "3"
    form.publishAt = "2026-11-22T09:00"
    form.deadline = "2026-12-31T23:59"
    form.consolation = "2"
    func question(_ id: String, _ kind: SurveyForm.Kind, _ text: String, _ edit: (inout SurveyForm.Question) -> Void = { _ in }) -> SurveyForm.Question {
      var question = SurveyForm.Question(id: id, kind: kind)
      question.text = text
      edit(&question)
      return question
    }
    form.questions = [
      question("q1", .single, "朝ごはんを食べますか？") { $0.isScreening = true; $0.choices = "*はい\nいいえ" },
      question("q2", .single, "頻度は？") { $0.choices = "毎日\nときどき" },
      question("q3", .grid, "満足度は？") { $0.rows = "味\n量（任意）"; $0.choices = "満足\n不満" },
      question("q4", .multiple, "よく食べるものは？") { $0.choices = "ごはん\nパン\n果物" },
      question("q5", .number, "かける時間は？") { $0.unit = "分" },
      question("q6", .longText, "理想の朝ごはんは？"),
      question("q7", .text, "ひとこと") { $0.isRequired = false },
      question("q8", .attention, "「いいえ」を選んでください") { $0.choices = "はい\n*いいえ" },
      question("q9", .rating, "総合評価は？"),
    ]
    return form
  }()

  static let mistakes: [Mistake] = [
    Mistake("title", "タイトルを入力してください") { $0.title = " " },
    Mistake("title", "タイトルは80文字以内で入力してください") { $0.title = String(repeating: "長", count: 81) },
    Mistake("description", "説明を入力してください") { $0.description = "" },
    Mistake("description", "説明は400文字以内で入力してください") { $0.description = String(repeating: "長", count: 401) },
    Mistake("category", "カテゴリを選んでください") { $0.category = "snacks" },
    Mistake("reward", "報酬は1〜10000の整数で入力してください") { $0.reward = "0" },
    Mistake("reward", "報酬は1〜10000の整数で入力してください") { $0.reward = "たくさん" },
    Mistake("minutes", "所要時間を入力してください") { $0.minutes = "" },
    Mistake("minutes", "所要時間は1〜120の整数で入力してください") { $0.minutes = "121" },
    Mistake("publishAt", "公開日時を入力してください") { $0.publishAt = "" },
    Mistake("publishAt", "公開日時は「2026-12-01T10:00」の形で入力してください") { $0.publishAt = "来週" },
    Mistake("deadline", "締切日時は公開日時より後にしてください") { $0.deadline = "2026-11-22T08:59" },
    Mistake("quota", "回収目標は1〜1000000の整数で入力してください") { $0.quota = "0" },
    Mistake("maxAge", "年齢の上限は下限以上にしてください") { $0.minAge = "30"; $0.maxAge = "20" },
    Mistake("maxAge", "年齢の上限は0〜120の整数で入力してください") { $0.maxAge = "130" },
    Mistake("genders", "性別を選び直してください") { $0.genders = ["female", "robot"] },
    Mistake("prefectures", "都道府県を選び直してください") { $0.prefectures = ["atlantis"] },
    Mistake("minSecondsPerQuestion", "1問あたりの最短時間は1〜60の整数で入力してください") { $0.minSecondsPerQuestion = "0" },
    Mistake("consolation", "対象外のお礼を入力してください") { $0.consolation = "" },
    Mistake("consolation", "対象外のお礼は報酬以下にしてください") { $0.consolation = "41" },
    Mistake("questions", "本調査の設問を1つ以上追加してください") { $0.questions = [$0.questions[0]] },
    Mistake("questions", "設問のIDが重複しています") { $0.questions[1].id = "q1" },
    Mistake("q.0.kind", "事前調査にできるのは単一選択・複数選択の設問です") { $0.questions[8].isScreening = true; $0.questions.swapAt(0, 8) },
    Mistake("q.0.choices", "対象となる選択肢の行頭に「*」を付けてください") { $0.questions[0].choices = "はい\nいいえ" },
    Mistake("q.1.text", "設問文を入力してください") { $0.questions[1].text = "" },
    Mistake("q.1.text", "設問文は200文字以内で入力してください") { $0.questions[1].text = String(repeating: "長", count: 201) },
    Mistake("q.1.text", "設問のIDが正しくありません。設問を追加し直してください") { $0.questions[1].id = "../x" },
    Mistake("q.1.choices", "選択肢を2つ以上、1行に1つずつ入力してください") { $0.questions[1].choices = "毎日\n\n" },
    Mistake("q.1.choices", "選択肢に同じものがあります") { $0.questions[1].choices = "毎日\n毎日" },
    Mistake("q.2.rows", "行を1つ以上、1行に1つずつ入力してください") { $0.questions[2].rows = "" },
    Mistake("q.2.rows", "行に同じものがあります") { $0.questions[2].rows = "味\n味" },
    Mistake("q.2.choices", "評価の段階を2つ以上、1行に1つずつ入力してください") { $0.questions[2].choices = "満足" },
    Mistake("q.3.maxPicks", "選べる数の上限は選択肢の数以下にしてください") { $0.questions[3].maxPicks = "4" },
    Mistake("q.3.maxPicks", "選べる数の上限は下限以上にしてください") { $0.questions[3].minPicks = "3"; $0.questions[3].maxPicks = "2" },
    Mistake("q.4.max", "最大値は最小値より大きくしてください") { $0.questions[4].min = "100" },
    Mistake("q.4.unit", "単位は10文字以内で入力してください") { $0.questions[4].unit = "とても長い単位の名前です" },
    Mistake("q.5.maxLength", "最大文字数は最小文字数以上にしてください") { $0.questions[5].minLength = "500" },
    Mistake("q.6.maxLength", "最大文字数は1〜2000の整数で入力してください") { $0.questions[6].maxLength = "0" },
    Mistake("q.7.choices", "正解の選択肢を1つだけ、行頭に「*」を付けて示してください") { $0.questions[7].choices = "はい\nいいえ" },
    Mistake("q.7.choices", "正解の選択肢を1つだけ、行頭に「*」を付けて示してください") { $0.questions[7].choices = "*はい\n*いいえ" },
    // The logic: display conditions, quota cells.
    Mistake("q.3.conditions", "「q2: 毎年」：「毎年」はq2の選択肢にありません") { $0.questions[3].conditions = "q2: 毎年" },
    Mistake("q.3.conditions", "「q99: はい」：設問ID「q99」の設問がありません") { $0.questions[3].conditions = "q99: はい" },
    Mistake("q.3.conditions", "「q2 毎日」：「q1: 選択肢」の形（設問ID、コロン、回答）で入力してください") { $0.questions[3].conditions = "q2 毎日" },
    Mistake("q.5.conditions", "「q5: たくさん」：数値の範囲は「3〜5」「3〜」「〜5」の形で入力してください") { $0.questions[5].conditions = "q5: たくさん" },
    Mistake("q.3.conditions", "「q3 香り: 満足」：「香り」はq3の行にありません") { $0.questions[3].conditions = "q3 香り: 満足" },
    Mistake("q.1.conditions", "設問2の表示条件が、後ろにある設問4を参照しています。条件には前の設問だけを使えます") {
      $0.questions[1].conditions = "q4: ごはん"
    },
    Mistake("q.4.conditions", "設問5はどの回答でも表示されません。表示条件を見直してください") { $0.questions[4].conditions = "q2: 毎日\nq2: ときどき" },
    Mistake("q.5.conditions", "設問6の表示条件が、設問5の回答ではありえない値を参照しています") { $0.questions[5].conditions = "q5: 200〜" },
    Mistake("q.0.conditions", "事前調査の設問には表示条件を付けられません") { $0.questions[0].conditions = "q2: 毎日" },
    Mistake("cellDimensions", "割付の軸（性別・年代・事前調査の設問）を選んでください") { $0.cells = "女性 = 5" },
    Mistake("cells", "「女性 = 0」：各行を「女性 × 20代 = 50」の形（末尾に = 上限件数）で入力してください") { $0.cellDimensions = ["gender"]; $0.cells = "女性 = 0" },
    Mistake("cells", "「ロボット = 5」：「ロボット」は性別の値にありません") { $0.cellDimensions = ["gender"]; $0.cells = "ロボット = 5" },
    Mistake("cells", "「=」：各行を「女性 × 20代 = 50」の形（末尾に = 上限件数）で入力してください") { $0.cellDimensions = ["gender"]; $0.cells = "=" },
    Mistake("cells", "「女性 50」：各行を「女性 × 20代 = 50」の形（末尾に = 上限件数）で入力してください") { $0.cellDimensions = ["gender"]; $0.cells = "女性 50" },
    Mistake("cells", "「女性 = 5」：軸の数（2つ）だけ値を「×」でつないでください") { $0.cellDimensions = ["gender", "ageBand"]; $0.cells = "女性 = 5" },
    Mistake("cells", "割付の軸にできるのは事前調査の単一選択だけです（設問2）") { $0.cellDimensions = ["s:q2"]; $0.cells = "毎日 = 5" },
  ]

  func editor(_ form: SurveyForm = Self.valid, published: Survey? = nil) -> TestStoreOf<SurveyEditor> {
    TestStore(initialState: SurveyEditor.State(draft: EditorDraft(id: Self.id, form: form, savedAt: noon - 60), published: published)) {
      SurveyEditor()
    } withDependencies: {
      $0.date.now = noon
      $0.operators.saveDraft = { _ in }
    }
  }

  /// Two completes of the breakfast survey: daily, rice and fruit; rarely, bread.
  static let liveCounts: ResponseCounts = {
    var counts = ResponseCounts()
    for (frequency, foods) in [("daily", ["rice", "fruit"]), ("rarely", ["bread"])] {
      counts.add(SurveyResponse(
        surveyID: Survey.breakfast.id, version: 1, respondent: "r-\(frequency)", outcome: .completed,
        answers: [
          SurveyAnswer(questionID: QuestionID("frequency"), value: .choice(ChoiceID(frequency))),
          SurveyAnswer(questionID: QuestionID("foods"), value: .choices(foods.map(ChoiceID.init))),
        ],
        shownAt: nil, sentAt: noon, paid: 40
      ))
    }
    return counts
  }()

  /// Before an edit is published, what it changes in the live version, each change with the
  /// responses so far it touches.
  @Test func anEditSaysWhatItChangesAndTheResponsesEachTouches() throws {
    var form = SurveyForm(.breakfast)
    form.questions[1].choices = "ごはん\nパン\nシリアル"  // 果物 goes, シリアル comes
    form.questions[1].conditions = "frequency: ほぼ毎日"
    form.questions[3].text = "ご意見・ご感想"
    form.questions.remove(at: 2)  // the rating
    form.quota = "300"
    let editor = SurveyEditor.State(draft: EditorDraft(id: Survey.breakfast.id, form: form, savedAt: noon), published: .breakfast, liveCounts: Self.liveCounts)
    let changes = try #require(editor.changes)
    #expect(changes == [
      SurveyChange("Q3「満足度は？」を削除（これまでの回答は出力に残ります）", touched: 2),
      SurveyChange("Q2の選択肢「果物」を削除", touched: 1),
      SurveyChange("Q2に選択肢「シリアル」を追加（これまでの回答者には表示されていません）", touched: 2),
      SurveyChange("Q2の表示条件を付ける", touched: 2),
      SurveyChange("Q3の設問文を「ご意見をどうぞ」から「ご意見・ご感想」に変更", touched: 2),
      SurveyChange("回収目標を上限なしから300件に変更", touched: nil),
    ])
    #expect(SurveyEditor.State(draft: EditorDraft(id: Survey.breakfast.id, form: SurveyForm(.breakfast), savedAt: noon), published: .breakfast).changes == [])
    #expect(SurveyEditor.State(draft: EditorDraft(id: Self.id, form: Self.valid, savedAt: noon), published: nil).changes == nil, "nothing live to differ from")
  }

  @Test func theValidFormIsASurvey() throws {
    let survey = try Self.valid.survey(id: Self.id, version: 1, base: nil).get()
    #expect(survey.questions.count == 8)
    #expect(survey.screening?.qualifying == [QuestionID("q1"): [ChoiceID("c1")]])
  }

  /// The logic as the editor's plain fields give it: a condition on an earlier choice (OR a
  /// range), options shuffled, questions shuffled, 性別 × 年代 cells; and back to the same fields.
  @Test func theLogicFieldsMakeTheSurveysLogicAndComeBackFromIt() throws {
    var form = Self.valid
    form.questions[3].conditions = "q2: ときどき\nq3 味: 不満"
    form.questions[3].join = "any"
    form.questions[3].shuffle = true
    form.questions[5].conditions = "q5: 10〜"
    form.shuffleQuestions = true
    form.cellDimensions = ["gender", "ageBand"]
    form.cells = "女性 × 20代 = 50\n男性×２０代=40"
    let survey = try form.survey(id: Self.id, version: 1, base: nil).get()
    let foods = try #require(survey.questions.first { $0.id == QuestionID("q4") })
    #expect(foods.condition == DisplayCondition(.any, [
      .init(question: QuestionID("q2"), choices: [ChoiceID("c2")]), .init(question: QuestionID("q3"), row: "r1", choices: [ChoiceID("c2")]),
    ]))
    #expect(foods.shufflesChoices)
    #expect(survey.questions.first { $0.id == QuestionID("q6") }?.condition == DisplayCondition(.all, [.init(question: QuestionID("q5"), min: 10)]))
    #expect(survey.shufflesQuestions)
    #expect(survey.cells == QuotaCells(dimensions: [.gender, .ageBand], cells: [.init(values: ["female", "20"], limit: 50), .init(values: ["male", "20"], limit: 40)]))
    let again = SurveyForm(survey)
    #expect(again.questions[3].conditions == "q2: ときどき\nq3 味: 不満" && again.questions[3].join == "any")
    #expect(again.cells == "女性 × 20代 = 50\n男性 × 20代 = 40")
    #expect(try again.survey(id: Self.id, version: 1, base: survey).get() == survey, "the same survey again")
  }

  /// A cell made of a screening question's answer, written with its options' labels.
  @Test func aCellOfAScreeningAnswerIsWrittenWithItsOptions() throws {
    var form = Self.valid
    form.cellDimensions = ["s:q1"]
    form.cells = "はい = 30"
    let survey = try form.survey(id: Self.id, version: 1, base: nil).get()
    #expect(survey.cells == QuotaCells(dimensions: [.screening(QuestionID("q1"))], cells: [.init(values: ["c1"], limit: 30)]))
  }

  /// Each mistake is shown at its field, alone; the draft is kept as typed; nothing is published.
  @Test(arguments: Self.mistakes)
  func eachMistakeIsShownAtItsFieldAndNothingIsPublished(_ mistake: Mistake) async {
    var form = Self.valid
    mistake.make(&form)
    let store = editor()
    await store.send(.submitted(form, .publish)) {
      $0.draft.form = form
      $0.draft.savedAt = noon
      $0.draft.isChecked = true
      $0.errors = [mistake.field: mistake.message]
    }
    await store.receive(.saved(.success(.publish)))
    await store.receive(.delegate(.editing))
  }

  @Test func aNewSurveyIsADraftOpenedInTheEditor() async {
    let saved = LockIsolated<[EditorDraft]>([])
    let store = TestStore(initialState: OperatorFeature.State.console()) {
      OperatorFeature()
    } withDependencies: {
      $0.date.now = noon
      $0.uuid = .incrementing
      $0.operators.saveDraft = { draft in saved.withValue { $0.append(draft) } }
    }
    await store.send(.newSurveyButtonTapped)
    await store.receive(.draftCreated(.success(Self.id))) { $0.destination = .editor(Self.id) }
    var form = SurveyForm()
    form.publishAt = "2026-11-22T12:00"
    form.deadline = "2026-12-06T12:00"
    form.addQuestion(.single)
    #expect(saved.value == [EditorDraft(id: Self.id, form: form, savedAt: noon)])
  }

  @Test func aDuplicateIsANewDraftWithTheSurveysForm() async {
    let saved = LockIsolated<[EditorDraft]>([])
    let store = TestStore(initialState: OperatorFeature.State.console()) {
      OperatorFeature()
    } withDependencies: {
      $0.date.now = noon
      $0.uuid = .incrementing
      $0.surveyClient = .catalog([.breakfast])
      $0.operators.saveDraft = { draft in saved.withValue { $0.append(draft) } }
    }
    await store.send(.duplicateButtonTapped(Survey.breakfast.id))
    await store.receive(.draftCreated(.success(Self.id))) { $0.destination = .editor(Self.id) }
    var form = SurveyForm(.breakfast)
    form.title += "（コピー）"
    #expect(saved.value == [EditorDraft(id: Self.id, form: form, savedAt: noon)])
    await store.send(.duplicateButtonTapped(SurveyID("nope")))
    await store.receive(.draftCreated(.failure(.notFound))) { $0.destination = .notFound }
  }

  /// Editing a published survey publishes it as its next version; the operator is back at the list.
  @Test func anEditIsPublishedAsTheNextVersion() async throws {
    let published = LockIsolated<[Survey]>([])
    let store = TestStore(initialState: OperatorFeature.State.console()) {
      OperatorFeature()
    } withDependencies: {
      $0.date.now = noon
      $0.surveyClient = .catalog([.breakfast])
      $0.operators.draft = { _ in nil }
      $0.operators.drafts = { [] }
      $0.operators.publish = { survey in
        published.withValue { $0.append(survey) }
        return survey
      }
      $0.operators.responseCounts = { _ in Self.liveCounts }
    }
    var form = SurveyForm(.breakfast)
    form.title = "朝ごはんに関するアンケート（改訂）"
    let next = try form.survey(id: Survey.breakfast.id, version: 2, base: .breakfast).get()
    await store.send(.editorSubmitted(Survey.breakfast.id, form, .publish)) {
      $0.destination = .editor(Survey.breakfast.id)
      $0.submission = OperatorFeature.Submission(form: form, intent: .publish)
    }
    let loaded = SurveyEditor.State(
      draft: EditorDraft(id: Survey.breakfast.id, form: SurveyForm(.breakfast), savedAt: noon), published: .breakfast, liveCounts: Self.liveCounts
    )
    await store.receive(.editorLoaded(.success(loaded))) {
      $0.editor = loaded
      $0.submission = nil
    }
    await store.receive(.editor(.submitted(form, .publish))) {
      $0.editor?.draft.form = form
      $0.editor?.draft.isChecked = true
    }
    await store.receive(.editor(.published(.success(next)))) { $0.editor?.published = next }
    await store.receive(.editor(.delegate(.published(next)))) { $0.now = noon }
    await store.receive(\.surveysLoaded.success) {
      $0.surveys = [.breakfast]
      $0.destination = .surveys
    }
    #expect(published.value.map(\.version) == [2])
    #expect(published.value.first?.title == "朝ごはんに関するアンケート（改訂）")
  }

  /// A publish time ahead schedules the survey: 公開予定 until then, and no user's page before.
  @Test func aSurveyIsScheduledByItsPublishTime() async throws {
    var form = Self.valid
    form.publishAt = "2026-11-25T10:00"
    let store = editor()
    store.dependencies.operators.publish = { $0 }
    let survey = try form.survey(id: Self.id, version: 1, base: nil).get()
    await store.send(.submitted(form, .publish)) {
      $0.draft.form = form
      $0.draft.savedAt = noon
      $0.draft.isChecked = true
    }
    await store.receive(.published(.success(survey))) { $0.published = survey }
    await store.receive(.delegate(.published(survey)))
    #expect(survey.status(at: noon) == .scheduled)
    #expect(!survey.isPublished(at: noon))
    #expect(survey.status(at: survey.publishedAt) == .open)
  }

  @Test func questionsAreAddedMovedAndRemovedAndEachChangeIsSaved() async {
    let saved = LockIsolated<[SurveyForm]>([])
    let store = editor()
    store.dependencies.operators.saveDraft = { draft in saved.withValue { $0.append(draft.form) } }
    var form = Self.valid
    form.addQuestion(.grid)
    await store.send(.submitted(Self.valid, .addQuestion(.grid))) {
      $0.draft.form = form
      $0.draft.savedAt = noon
    }
    await store.receive(.saved(.success(.addQuestion(.grid))))
    await store.receive(.delegate(.editing))
    form.moveQuestion(at: 9, by: -1)
    await store.send(.submitted(store.state.draft.form, .moveQuestion(9, by: -1))) { $0.draft.form = form }
    await store.receive(.saved(.success(.moveQuestion(9, by: -1))))
    await store.receive(.delegate(.editing))
    form.removeQuestion(at: 7)
    await store.send(.submitted(store.state.draft.form, .removeQuestion(7))) { $0.draft.form = form }
    await store.receive(.saved(.success(.removeQuestion(7))))
    await store.receive(.delegate(.editing))
    #expect(saved.value.map { $0.questions.map(\.id) }.last == ["q1", "q2", "q3", "q4", "q5", "q6", "q7", "q10", "q9"])
    #expect(saved.value.count == 3)
  }

  @Test func aPreviewShowsAWholeDraftAndSendsOneWithMistakesBackToItsForm() async {
    let store = editor()
    await store.send(.submitted(Self.valid, .preview)) {
      $0.draft.savedAt = noon
      $0.draft.isChecked = true
    }
    await store.receive(.saved(.success(.preview)))
    await store.receive(.delegate(.previewing))
    var form = Self.valid
    form.title = ""
    await store.send(.submitted(form, .preview)) {
      $0.draft.form = form
      $0.errors = ["title": "タイトルを入力してください"]
    }
    await store.receive(.saved(.success(.preview)))
    await store.receive(.delegate(.editing))
    // Once checked, a saved draft keeps showing what is left to fix, and stops when it is fixed.
    await store.send(.submitted(Self.valid, .save)) {
      $0.draft.form = Self.valid
      $0.errors = [:]
    }
    await store.receive(.saved(.success(.save)))
    await store.receive(.delegate(.editing))
  }

  @Test func aDraftIsDiscardedAndTheOperatorIsBackAtTheList() async {
    let store = TestStore(initialState: OperatorFeature.State.console()) {
      OperatorFeature()
    } withDependencies: {
      $0.date.now = noon
      $0.surveyClient = .catalog([])
      $0.operators.draft = { _ in EditorDraft(id: Self.id, form: Self.valid, savedAt: noon - 60) }
      $0.operators.drafts = { [] }
      $0.operators.discardDraft = { id in #expect(id == Self.id) }
    }
    await store.send(.editorSubmitted(Self.id, Self.valid, .discard)) {
      $0.destination = .editor(Self.id)
      $0.submission = OperatorFeature.Submission(form: Self.valid, intent: .discard)
    }
    let loaded = SurveyEditor.State(draft: EditorDraft(id: Self.id, form: Self.valid, savedAt: noon - 60), published: nil)
    await store.receive(.editorLoaded(.success(loaded))) {
      $0.editor = loaded
      $0.submission = nil
    }
    await store.receive(.editor(.submitted(Self.valid, .discard))) { $0.editor?.draft.savedAt = noon }
    await store.receive(.editor(.discarded(.success(Self.id))))
    await store.receive(.editor(.delegate(.discarded))) { $0.now = noon }
    await store.receive(\.surveysLoaded.success) { $0.destination = .surveys }
  }

  @Test func theEditorOfASurveyThatIsNeitherDraftedNorPublishedIsNotFound() async {
    let store = TestStore(initialState: OperatorFeature.State.console()) {
      OperatorFeature()
    } withDependencies: {
      $0.date.now = noon
      $0.surveyClient = .catalog([])
      $0.operators.draft = { _ in nil }
    }
    await store.send(.editorRequested(SurveyID("nope"))) { $0.destination = .editor(SurveyID("nope")) }
    await store.receive(.editorLoaded(.failure(.notFound))) { $0.destination = .notFound }
    await store.send(.previewRequested(SurveyID("nope"), mainQuestions: false)) { $0.destination = .preview(SurveyID("nope")) }
    await store.receive(.editorLoaded(.failure(.notFound))) { $0.destination = .notFound }
  }
}
