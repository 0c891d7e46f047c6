import CasePaths
import Clocks
import Composable
import ComposableTesting
import Dependencies
import Foundation
import Testing

/// `@Dependency(\.dismiss)`, as TCA documents it: the add-contact form closes itself when its
/// cancel button is tapped; its parent receives the presentation's `.dismiss` and the form's
/// other work ends with it.
struct DismissTests {
  func presentingTheForm() async -> TestStoreOf<Contacts> {
    let store = TestStore(initialState: Contacts.State()) { Contacts() } withDependencies: {
      $0.uuid = .incrementing
      $0.continuousClock = TestClock()
      $0.nameSuggestion.suggest = {
        @Dependency(\.continuousClock) var clock
        try await clock.sleep(for: .seconds(1))
        return "Blob"
      }
    }
    await store.send(.addButtonTapped) {
      $0.destination = .addContact(AddContact.State(contact: Contact(id: UUID(0), name: "")))
    }
    return store
  }

  @Test func aPresentedChildDismissesItself() async {
    let store = await presentingTheForm()
    await store.send(\.destination.presented.addContact.cancelButtonTapped)
    await store.receive(\.destination.dismiss) { $0.destination = nil }
    #expect(store.state.contacts.isEmpty)
  }

  @Test func itsOtherWorkEndsWithIt() async {
    let store = await presentingTheForm()
    await store.send(\.destination.presented.addContact.suggestButtonTapped) {
      $0.destination = .addContact(AddContact.State(contact: Contact(id: UUID(0), name: ""), isSuggesting: true))
    }
    await store.send(\.destination.presented.addContact.cancelButtonTapped)
    await store.receive(\.destination.dismiss) { $0.destination = nil }
    // The suggestion, still waiting on the clock, was cancelled with the form: nothing arrives.
    await store.finish()
  }

  /// Where TCA reports an issue: dismissing a reducer that is not presented.
  @Test func dismissingWhatIsNotPresentedIsReported() async {
    await withKnownIssue {
      let store = TestStore(initialState: AddContact.State(contact: Contact(id: UUID(0), name: ""))) { AddContact() }
      #expect(!store.dependencies.isPresented)
      await store.send(.cancelButtonTapped)
    } matching: { issue in
      message(of: issue).hasPrefix(#"A reducer requested dismissal at "ComposableTests/Contacts.swift:"#)
        && message(of: issue).contains("couldn't be dismissed")
    }
  }
}
