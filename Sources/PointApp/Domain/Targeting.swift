import Foundation

/// Whom a survey is for: an age range (inclusive), genders, prefectures; `nil` is anyone. Checked
/// with the profile as it is when the survey is opened and again when it is answered.
public struct Targeting: Codable, Equatable, Sendable {
  public let minAge: Int?
  public let maxAge: Int?
  public let genders: [Gender]?
  public let prefectures: [Prefecture]?

  public init(minAge: Int? = nil, maxAge: Int? = nil, genders: [Gender]? = nil, prefectures: [Prefecture]? = nil) {
    self.minAge = minAge
    self.maxAge = maxAge
    self.genders = genders
    self.prefectures = prefectures
  }

  /// Whether a user with `profile` may answer at `date`. Targeting needs a profile to decide.
  public func eligibility(of profile: Profile?, at date: Date) -> Eligibility {
    guard let profile else { return .needsProfile }
    let age = profile.age(at: date)
    if let minAge, age < minAge { return .outsideTarget }
    if let maxAge, age > maxAge { return .outsideTarget }
    if let genders, !genders.contains(profile.gender) { return .outsideTarget }
    if let prefectures, !prefectures.contains(profile.prefecture) { return .outsideTarget }
    return .eligible
  }
}

public enum Eligibility: Equatable, Sendable {
  case eligible
  /// The survey is targeted and the user has no profile yet.
  case needsProfile
  case outsideTarget
}
