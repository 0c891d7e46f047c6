import Foundation

/// What a user tells about themselves so that surveys meant for them find them: the birth year
/// (never the day), gender, prefecture and occupation. Filling it in the first time pays
/// `bonus`, once, however often it is edited later.
public struct Profile: Codable, Equatable, Sendable {
  public let birthYear: Int
  public let gender: Gender
  public let prefecture: Prefecture
  public let occupation: Occupation

  public init(birthYear: Int, gender: Gender, prefecture: Prefecture, occupation: Occupation) {
    self.birthYear = birthYear
    self.gender = gender
    self.prefecture = prefecture
    self.occupation = occupation
  }

  /// The ages a profile may give: a year of birth outside them is refused.
  public static let ages = 15...100
  public static let bonus: PointAmount = 50

  /// The age the user reaches in `date`'s year in Tokyo: with only the birth year known, a person
  /// born in 1996 counts as 30 for all of 2026, from midnight JST on New Year's Day.
  public func age(at date: Date) -> Int {
    Self.year(of: date) - birthYear
  }

  static func year(of date: Date) -> Int {
    Calendar.tokyo.component(.year, from: date)
  }

  /// `text` with full-width digits (０–９, as Japanese keyboards type them) made ASCII.
  static func halfWidthDigits(_ text: String) -> String {
    String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
      (0xFF10...0xFF19).contains(scalar.value) ? Unicode.Scalar(scalar.value - 0xFF10 + 0x30)! : scalar
    }))
  }

  /// Checks the profile form's fields: the profile when all are valid, otherwise why each
  /// invalid field failed. Digits may be full-width (`１９９６`).
  public static func validate(_ draft: ProfileDraft, at date: Date) -> Result<Profile, ProfileErrors> {
    var errors: [ProfileField: ProfileError] = [:]
    let year = Self.year(of: date)
    let years = (year - ages.upperBound)...(year - ages.lowerBound)
    var birthYear: Int?
    let digits = Self.halfWidthDigits(draft.birthYear.trimmingCharacters(in: .whitespaces))
    if digits.isEmpty {
      errors[.birthYear] = .required
    } else if digits.count != 4 || Int(digits) == nil || !digits.allSatisfy(\.isASCII) {
      errors[.birthYear] = .notAYear
    } else if let value = Int(digits), years.contains(value) {
      birthYear = value
    } else {
      errors[.birthYear] = .yearOutOfRange(years)
    }
    func option<Option: RawRepresentable<String>>(_ raw: String, _ field: ProfileField) -> Option? {
      guard !raw.isEmpty else {
        errors[field] = .notChosen
        return nil
      }
      guard let option = Option(rawValue: raw) else {
        errors[field] = .unknownOption
        return nil
      }
      return option
    }
    let gender: Gender? = option(draft.gender, .gender)
    let prefecture: Prefecture? = option(draft.prefecture, .prefecture)
    let occupation: Occupation? = option(draft.occupation, .occupation)
    guard let birthYear, let gender, let prefecture, let occupation else { return .failure(ProfileErrors(byField: errors)) }
    return .success(Profile(birthYear: birthYear, gender: gender, prefecture: prefecture, occupation: occupation))
  }
}

public enum Gender: String, Codable, CaseIterable, Sendable {
  case female, male, other, noAnswer

  public var title: String {
    switch self {
    case .female: "女性"
    case .male: "男性"
    case .other: "その他"
    case .noAnswer: "回答しない"
    }
  }
}

public enum Occupation: String, Codable, CaseIterable, Sendable {
  case companyEmployee, publicServant, selfEmployed, partTime, student, homemaker, retired, unemployed, other

  public var title: String {
    switch self {
    case .companyEmployee: "会社員"
    case .publicServant: "公務員"
    case .selfEmployed: "自営業・自由業"
    case .partTime: "パート・アルバイト"
    case .student: "学生"
    case .homemaker: "専業主婦・主夫"
    case .retired: "退職・年金生活"
    case .unemployed: "無職"
    case .other: "その他"
    }
  }
}

/// The profile form's fields as sent, unchecked; each kept to 32 characters, so that a refused
/// form kept with the user's data cannot grow it.
public struct ProfileDraft: Codable, Equatable, Sendable {
  public let birthYear: String
  public let gender: String
  public let prefecture: String
  public let occupation: String

  public init(birthYear: String = "", gender: String = "", prefecture: String = "", occupation: String = "") {
    self.birthYear = String(birthYear.prefix(32))
    self.gender = String(gender.prefix(32))
    self.prefecture = String(prefecture.prefix(32))
    self.occupation = String(occupation.prefix(32))
  }

  /// The form as a saved profile fills it in.
  public init(_ profile: Profile) {
    self.init(birthYear: String(profile.birthYear), gender: profile.gender.rawValue, prefecture: profile.prefecture.rawValue, occupation: profile.occupation.rawValue)
  }
}

public enum ProfileField: String, CaseIterable, Sendable {
  case birthYear, gender, prefecture, occupation
}

/// Why a profile field was refused.
public enum ProfileError: Equatable, Sendable, Error {
  case required
  case notChosen
  case notAYear
  case yearOutOfRange(ClosedRange<Int>)
  case unknownOption

  public var message: String {
    switch self {
    case .required: "入力してください。"
    case .notChosen: "選択してください。"
    case .notAYear: "西暦4桁で入力してください（例：1990）。"
    case let .yearOutOfRange(years): "\(years.lowerBound)〜\(years.upperBound)年の範囲で入力してください。"
    case .unknownOption: "選択肢の中から選んでください。"
    }
  }
}

public struct ProfileErrors: Equatable, Sendable, Error {
  public let byField: [ProfileField: ProfileError]

  public init(byField: [ProfileField: ProfileError]) { self.byField = byField }
}
