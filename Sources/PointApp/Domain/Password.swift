import Foundation

/// Why a new password is refused.
public enum PasswordProblem: Error, Equatable, Sendable {
  case tooShort, tooLong, common

  public var message: String {
    switch self {
    case .tooShort: "パスワードは\(PasswordPolicy.minLength)文字以上にしてください。"
    case .tooLong: "パスワードは\(PasswordPolicy.maxLength)文字以内にしてください。"
    case .common: "よく使われているパスワードです。推測されにくいものにしてください。"
    }
  }
}

/// What a new password must be, after NIST SP 800-63B: long enough and not one attackers try
/// first. No composition rules (a digit, a symbol…) and no expiry: they make people choose
/// predictable variations, not stronger passwords. Any character is allowed, spaces and kana
/// included, so a passphrase works.
public enum PasswordPolicy {
  /// Lengths are counted in Characters, as a person counts what they typed: "パス" is 2.
  public static let minLength = 8
  /// Long enough for any passphrase, short enough to bound the cost of hashing.
  public static let maxLength = 128

  /// What is wrong with `password` as a new password, or `nil` if it can be used.
  public static func problem(with password: String) -> PasswordProblem? {
    let length = password.count
    if length < minLength { return .tooShort }
    if length > maxLength { return .tooLong }
    if common.contains(password.lowercased()) { return .common }
    return nil
  }

  /// The shipped list of common passwords, lowercased: a guess on it is found in the first
  /// seconds of an attack, whatever its case. Only entries of `minLength` or more are listed,
  /// since shorter ones are refused anyway. A missing or unreadable resource is a packaging bug:
  /// it stops the program the first time a password is checked.
  static let common: Set<String> = {
    guard
      let url = Bundle.module.url(forResource: "common-passwords", withExtension: "txt"),
      let text = try? String(contentsOf: url, encoding: .utf8)
    else { fatalError("common-passwords.txt is missing from the PointApp bundle") }
    return Set(text.split(whereSeparator: \.isNewline).map(String.init))
  }()
}
