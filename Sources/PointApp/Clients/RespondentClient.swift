import Dependencies

/// The request's user as a survey knows them: their pseudonym in it (the web layer binds it to
/// the request's user, as its responses name them). A survey that shuffles orders it by this, so
/// a respondent sees the same order on every reload.
public struct RespondentClient: Sendable {
  public var name: @Sendable (_ survey: SurveyID) -> String

  public init(name: @escaping @Sendable (_ survey: SurveyID) -> String) { self.name = name }
}

extension RespondentClient: DependencyKey {
  /// No user is known outside a request: every survey's own order.
  public static let liveValue = RespondentClient(name: { _ in "" })
  /// One respondent, the same in every test.
  public static let testValue = RespondentClient(name: { "respondent-\($0.rawValue)" })
}

extension DependencyValues {
  public var respondents: RespondentClient {
    get { self[RespondentClient.self] }
    set { self[RespondentClient.self] = newValue }
  }
}
