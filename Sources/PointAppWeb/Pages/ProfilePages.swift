import PointApp

extension Pages {
  /// The profile form: the saved profile, or the refused fields with an error at each; the bonus
  /// offered until it is paid.
  static func profile(_ state: AppFeature.State, csrf: String) -> [String: Any] {
    let form = state.profileForm
    let fields = form.fields
    let errors = form.errors
    func error(_ field: ProfileField) -> Any { errors[field]?.message ?? false }
    func options<Option: CaseIterable & RawRepresentable<String>>(_: Option.Type, selected: String, title: (Option) -> String) -> [[String: Any]] {
      Option.allCases.map { ["value": $0.rawValue, "title": title($0), "selected": $0.rawValue == selected] }
    }
    return layout(state, body: [
      "csrf": csrf,
      "hasProfile": form.progress.profile != nil,
      "bonus": "\(Profile.bonus)",
      "birthYear": fields.birthYear,
      "genders": options(Gender.self, selected: fields.gender) { $0.title },
      "regions": Prefecture.Region.allCases.map { region -> [String: Any] in
        ["title": region.title, "prefectures": region.prefectures.map { ["value": $0.rawValue, "title": $0.title, "selected": $0.rawValue == fields.prefecture] }]
      },
      "occupations": options(Occupation.self, selected: fields.occupation) { $0.title },
      "hasErrors": !errors.isEmpty, "errorCount": errors.count,
      "errors": ProfileField.allCases.compactMap { field in errors[field].map { ["field": field.rawValue, "label": field.label, "message": $0.message] } },
      "birthYearError": error(.birthYear), "genderError": error(.gender), "prefectureError": error(.prefecture), "occupationError": error(.occupation),
    ])
  }
}

extension ProfileField {
  var label: String {
    switch self {
    case .birthYear: "生まれた年"
    case .gender: "性別"
    case .prefecture: "お住まいの都道府県"
    case .occupation: "職業"
    }
  }
}
