import ComposableTesting
import ConcurrencyExtras
import Dependencies
import Foundation
import PointApp
import Testing

struct ProfileFormTests {
  static let hanako = Profile(birthYear: 1996, gender: .female, prefecture: .tokyo, occupation: .companyEmployee)
  static let filled = ProfileDraft(hanako)

  func makeStore(_ state: ProfileForm.State = ProfileForm.State()) -> TestStoreOf<ProfileForm> {
    TestStore(initialState: state) {
      ProfileForm()
    } withDependencies: {
      $0.date.now = noon
      $0.uuid = .incrementing
    }
  }

  @Test func fillingTheProfileTheFirstTimePaysTheBonusOnce() async {
    let store = makeStore()
    await store.send(.submitted(Self.filled)) {
      $0.progress.saveProfile(Self.hanako, id: TransactionID(UUID(0)), at: noon)
    }
    await store.receive(.delegate(.saved(bonus: Profile.bonus)))
    #expect(store.state.progress.ledger.balance == Profile.bonus)
    #expect(store.state.progress.ledger.recent.map(\.reason) == [.profileBonus])

    // Sent again (Back and send, a second tab), or edited: saved, paid nothing.
    await store.send(.submitted(Self.filled))
    await store.receive(.delegate(.saved(bonus: nil)))
    let moved = Profile(birthYear: 1996, gender: .female, prefecture: .osaka, occupation: .companyEmployee)
    await store.send(.submitted(ProfileDraft(moved))) {
      $0.progress.saveProfile(moved, id: TransactionID(UUID(2)), at: noon)
    }
    await store.receive(.delegate(.saved(bonus: nil)))
    #expect(store.state.progress.ledger.balance == Profile.bonus)
    #expect(store.state.progress.profile == moved)
  }

  @Test func aRefusedFormIsKeptWithAnErrorAtEachFieldUntilASaveSucceeds() async {
    let store = makeStore()
    let refused = ProfileDraft(birthYear: "2020", gender: "", prefecture: "atlantis", occupation: "student")
    await store.send(.submitted(refused)) {
      $0.draft = refused
      $0.errors = [.birthYear: .yearOutOfRange(1926...2011), .gender: .notChosen, .prefecture: .unknownOption]
    }
    await store.receive(.delegate(.refused))
    #expect(store.state.progress.ledger.balance == 0)
    #expect(store.state.fields == refused)

    await store.send(.submitted(Self.filled)) {
      $0.draft = nil
      $0.errors = [:]
      $0.progress.saveProfile(Self.hanako, id: TransactionID(UUID(0)), at: noon)
    }
    await store.receive(.delegate(.saved(bonus: Profile.bonus)))
  }

  /// The page after a refused form (a new request: the errors are worked out again from the kept
  /// draft), and the page of a saved profile, which shows it.
  @Test func thePageShowsTheKeptDraftsErrorsOrTheSavedProfile() async {
    let refused = ProfileDraft(birthYear: "", gender: "male", prefecture: "tokyo", occupation: "student")
    let store = makeStore(ProfileForm.State(draft: refused))
    await store.send(.pageRequested) {
      $0.errors = [.birthYear: .required]
    }
    var progress = UserProgress()
    progress.saveProfile(Self.hanako, id: TransactionID(UUID(9)), at: noon)
    let saved = makeStore(ProfileForm.State(progress: progress))
    await saved.send(.pageRequested)
    #expect(saved.state.fields == Self.filled)
  }
}
