import CasePaths
import Clocks
import Composable
import ComposableTesting
import Dependencies
import Foundation
import IdentifiedCollections
import Testing

struct ContactsTests {
  @Test func addingAContactSavesItThroughTheDelegate() async {
    let store = TestStore(initialState: Contacts.State()) {
      Contacts()
    } withDependencies: {
      $0.uuid = .incrementing
    }
    await store.send(.addButtonTapped) {
      $0.destination = .addContact(AddContact.State(contact: Contact(id: UUID(0), name: "")))
    }
    await store.send(\.destination.presented.addContact.nameChanged, "Blob") {
      $0.destination = .addContact(AddContact.State(contact: Contact(id: UUID(0), name: "Blob")))
    }
    await store.send(\.destination.presented.addContact.saveButtonTapped)
    await store.receive(\.destination.presented.addContact.delegate.saveContact) {
      $0.contacts = [Contact(id: UUID(0), name: "Blob")]
      $0.destination = nil
    }
  }

  @Test func dismissingTheFormCancelsItsSuggestion() async {
    let (store, clock) = await addFormSuggestingAName()
    await store.send(\.destination.dismiss) { $0.destination = nil }
    // The suggestion would have arrived now: cancelled, it sends nothing and has finished.
    await clock.advance(by: .seconds(1))
    await store.finish()
    #expect(store.state.contacts.isEmpty)
  }

  @Test func replacingTheFormWithAnAlertCancelsItsSuggestion() async {
    let (store, clock) = await addFormSuggestingAName()
    await store.send(.deleteButtonTapped(id: UUID(7))) {
      $0.destination = .alert(.deleteConfirmation(id: UUID(7)))
    }
    await clock.advance(by: .seconds(1))
    await store.finish()
  }

  @Test func theSuggestionArrivesWhileTheFormIsOpen() async {
    let (store, clock) = await addFormSuggestingAName()
    await clock.advanceOnceSleeping(by: .seconds(1))
    await store.receive(\.destination.presented.addContact.suggestionResponse) {
      $0.destination = .addContact(AddContact.State(contact: Contact(id: UUID(0), name: "Blob")))
    }
  }

  /// The add form open, waiting for a name suggestion that takes a second.
  func addFormSuggestingAName() async -> (TestStoreOf<Contacts>, TestClock<Duration>) {
    let clock = TestClock()
    let store = TestStore(initialState: Contacts.State()) {
      Contacts()
    } withDependencies: {
      $0.uuid = .incrementing
      $0.continuousClock = clock
      $0.nameSuggestion.suggest = {
        try await clock.sleep(for: .seconds(1))
        return "Blob"
      }
    }
    await store.send(.addButtonTapped) {
      $0.destination = .addContact(AddContact.State(contact: Contact(id: UUID(0), name: "")))
    }
    await store.send(\.destination.presented.addContact.suggestButtonTapped) {
      $0.destination = .addContact(AddContact.State(contact: Contact(id: UUID(0), name: ""), isSuggesting: true))
    }
    return (store, clock)
  }

  @Test func deletingAsksForConfirmationFirst() async {
    let blob = Contact(id: UUID(0), name: "Blob")
    let store = TestStore(initialState: Contacts.State(contacts: [blob])) { Contacts() }
    await store.send(.deleteButtonTapped(id: blob.id)) {
      $0.destination = .alert(.deleteConfirmation(id: blob.id))
    }
    // Choosing a button closes the alert by itself.
    await store.send(\.destination.presented.alert.confirmDeletion, blob.id) {
      $0.contacts = []
      $0.destination = nil
    }
  }

  @Test func cancellingTheAlertDeletesNothing() async {
    let blob = Contact(id: UUID(0), name: "Blob")
    let store = TestStore(initialState: Contacts.State(contacts: [blob])) { Contacts() }
    await store.send(.deleteButtonTapped(id: blob.id)) {
      $0.destination = .alert(.deleteConfirmation(id: blob.id))
    }
    await store.send(\.destination.dismiss) { $0.destination = nil }
  }

  @Test func theAlertSaysWhatEachButtonDoes() {
    let alert = AlertState<Contacts.Action.Alert>.deleteConfirmation(id: UUID(0))
    #expect(alert.title == "Are you sure?")
    #expect(alert.buttons.map(\.label) == ["Delete", "Cancel"])
    #expect(alert.buttons.map(\.role) == [.destructive, .cancel])
    #expect(alert.buttons.map(\.action) == [.confirmDeletion(id: UUID(0)), nil])
  }

  @Test func aContactIsDeletedFromItsPushedDetail() async {
    let blob = Contact(id: UUID(0), name: "Blob")
    let store = TestStore(initialState: Contacts.State(contacts: [blob])) { Contacts() }
    await store.send(.path(.push(id: 0, state: ContactDetail.State(contact: blob)))) {
      $0.path[id: 0] = ContactDetail.State(contact: blob)
    }
    await store.send(.path(.element(id: 0, action: .deleteButtonTapped))) {
      $0.path[id: 0]?.alert = AlertState(
        title: "Delete Blob?",
        buttons: [
          ButtonState(role: .destructive, action: .confirmDeletion, label: "Delete"),
          ButtonState(role: .cancel, label: "Cancel"),
        ]
      )
    }
    await store.send(.path(.element(id: 0, action: .alert(.presented(.confirmDeletion))))) {
      $0.path[id: 0]?.alert = nil
    }
    await store.receive(\.path[id: 0].delegate.confirmDeletion) {
      $0.contacts = []
      $0.path = []
    }
  }

  @Test func pushedIDsStayWithTheirElements() async {
    let blob = Contact(id: UUID(0), name: "Blob")
    let blobJr = Contact(id: UUID(1), name: "Blob Jr.")
    let store = TestStore(initialState: Contacts.State(contacts: [blob, blobJr])) { Contacts() }
    await store.send(.path(.push(id: 0, state: ContactDetail.State(contact: blob)))) {
      $0.path.append(ContactDetail.State(contact: blob))
    }
    await store.send(.path(.push(id: 1, state: ContactDetail.State(contact: blobJr)))) {
      $0.path.append(ContactDetail.State(contact: blobJr))
    }
    await store.send(.path(.popFrom(id: 1))) { _ = $0.path.popLast() }
    #expect(store.state.path.elementIDs == [0])
    await store.send(.path(.push(id: 2, state: ContactDetail.State(contact: blobJr)))) {
      $0.path.append(ContactDetail.State(contact: blobJr))
    }
    #expect(store.state.path.elementIDs == [0, 2], "a popped id is never given again")
  }

  @Test func anActionForAPoppedElementIsReportedAndChangesNothing() async {
    let store = TestStore(initialState: Contacts.State()) { Contacts() }
    await withKnownIssue {
      await store.send(.path(.element(id: 7, action: .deleteButtonTapped)))
    } matching: { issue in
      message(of: issue).contains("received an action for element #7, which is not on the stack, and ignored it.")
    }
    #expect(store.state == Contacts.State())
  }

  @Test func aChoiceFromAnAlertNoLongerShownIsReported() async {
    let blob = Contact(id: UUID(0), name: "Blob")
    let store = TestStore(initialState: Contacts.State(contacts: [blob])) { Contacts() }
    await withKnownIssue {
      await store.send(\.destination.presented.alert.confirmDeletion, blob.id)
    } matching: { issue in
      message(of: issue).contains("received a child action while nothing was presented, and ignored it.")
        && message(of: issue).contains("Likely causes:")
    }
    #expect(store.state.contacts == [blob], "a stale confirmation deletes nothing")
  }

  @Test func elementsOfAnIdentifiedArrayAreEditedInPlaceById() async {
    let store = TestStore(
      initialState: Favorites.State(rows: [Favorites.Row(id: 0), Favorites.Row(id: 1)])
    ) { Favorites() }
    await store.send(.rows(.element(id: 1, action: .toggled))) {
      $0.rows[id: 1]?.isFavorite = true
    }
    await withKnownIssue {
      await store.send(.rows(.element(id: 7, action: .toggled)))
    } matching: { issue in
      message(of: issue).contains("received an action for an element with id 7 that is not in the collection")
    }
  }

  @Test func scopedFeaturesRunSideBySide() async {
    let store = TestStore(initialState: CaseStudies.State()) {
      CaseStudies()
    } withDependencies: {
      $0.uuid = .incrementing
      $0.numberFact.fetch = { "\($0) is the loneliest number." }
    }
    await store.send(.counter(.incrementButtonTapped)) { $0.counter.count = 1 }
    await store.send(.counter(.numberFactButtonTapped)) { $0.counter.isLoading = true }
    await store.receive(\.counter.numberFactResponse) {
      $0.counter.isLoading = false
      $0.counter.numberFactAlert = "1 is the loneliest number."
    }
    await store.send(.contacts(.addButtonTapped)) {
      $0.contacts.destination = .addContact(AddContact.State(contact: Contact(id: UUID(0), name: "")))
    }
    await store.send(\.contacts.destination.presented.addContact.saveButtonTapped)
    await store.receive(\.contacts.destination.presented.addContact.delegate.saveContact) {
      $0.contacts.contacts = [Contact(id: UUID(0), name: "")]
      $0.contacts.destination = nil
    }
  }
}

/// Rows edited in place through `forEach` over an identified array.
private struct Favorites: Reducer {
  struct Row: Equatable, Identifiable, Sendable {
    let id: Int
    var isFavorite = false
  }

  struct State: Equatable, Sendable {
    var rows: IdentifiedArrayOf<Row>
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case rows(IdentifiedAction<Int, RowAction>)
  }

  @CasePathable
  enum RowAction: Equatable, Sendable {
    case toggled
  }

  var body: some ReducerOf<Self> {
    EmptyReducer()
      .forEach(\.rows, action: \.rows) {
        Reduce<Row, RowAction> { row, _ in
          row.isFavorite.toggle()
          return .none
        }
      }
  }
}

/// Both seed 002 case studies side by side, each scoped to its part of the state.
struct CaseStudies: Reducer {
  struct State: Equatable, Sendable {
    var counter = Counter.State()
    var contacts = Contacts.State()
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case counter(Counter.Action)
    case contacts(Contacts.Action)
  }

  var body: some ReducerOf<Self> {
    Scope(state: \.counter, action: \.counter) { Counter() }
    Scope(state: \.contacts, action: \.contacts) { Contacts() }
  }
}

/// The text an issue was reported with.
func message(of issue: Issue) -> String {
  issue.comments.map(\.rawValue).joined(separator: "\n")
}

extension TestClock<Duration> {
  /// Advances once an effect sleeps on the clock: an effect still on its way to its sleep (a busy
  /// machine delays it) would start counting only after the advance, and never be due. It waits
  /// up to ten seconds of real time, not a count of yields: CI once ran out of 1,000 yields while
  /// the fuzz test kept both cores busy, and the timer it advanced past never ticked.
  func advanceOnceSleeping(by duration: Duration) async {
    let deadline = ContinuousClock.now.advanced(by: .seconds(10))
    while ContinuousClock.now < deadline {
      do { try await checkSuspension() } catch { break }  // throws once something sleeps
      try? await Task.sleep(for: .milliseconds(1))
    }
    await advance(by: duration)
  }
}
