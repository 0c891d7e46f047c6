import ComposableTesting
import Dependencies
import Foundation
import Testing

struct ContactsTests {
  @Test func addingAContactSavesItThroughTheDelegate() async {
    let store = TestStore(initialState: Contacts.State()) {
      Contacts()
    } withDependencies: {
      $0.uuid = .incrementing
    }
    await store.send(.addButtonTapped) {
      $0.addContact = AddContact.State(contact: Contact(id: UUID(0), name: ""))
    }
    await store.send(.addContact(.nameChanged("Blob"))) {
      $0.addContact?.contact.name = "Blob"
    }
    await store.send(.addContact(.saveButtonTapped))
    await store.receive(\.addContact.delegate.saveContact) {
      $0.contacts = [ContactDetail.State(contact: Contact(id: UUID(0), name: "Blob"))]
      $0.addContact = nil
    }
  }

  @Test func cancellingTheFormAddsNothing() async {
    let store = TestStore(
      initialState: Contacts.State(addContact: AddContact.State(contact: Contact(id: UUID(0), name: "Blob")))
    ) { Contacts() }
    await store.send(.addContact(.cancelButtonTapped))
    await store.receive(.addContact(.delegate(.cancel))) { $0.addContact = nil }
  }

  @Test func deletingAsksForConfirmationFirst() async {
    let blob = Contact(id: UUID(0), name: "Blob")
    let store = TestStore(initialState: Contacts.State(contacts: [ContactDetail.State(contact: blob)])) {
      Contacts()
    }
    await store.send(.deleteButtonTapped(id: blob.id)) {
      $0.deleteConfirmation = Contacts.DeleteConfirmation(contactID: blob.id)
    }
    await store.send(.deleteConfirmation(.cancelButtonTapped)) { $0.deleteConfirmation = nil }
    await store.send(.deleteButtonTapped(id: blob.id)) {
      $0.deleteConfirmation = Contacts.DeleteConfirmation(contactID: blob.id)
    }
    await store.send(.deleteConfirmation(.confirmButtonTapped)) {
      $0.contacts = []
      $0.deleteConfirmation = nil
    }
  }

  @Test func aConfirmationWithoutItsDialogIsReportedAndChangesNothing() async {
    let blob = Contact(id: UUID(0), name: "Blob")
    let store = TestStore(initialState: Contacts.State(contacts: [ContactDetail.State(contact: blob)])) {
      Contacts()
    }
    await withKnownIssue {
      await store.send(.deleteConfirmation(.confirmButtonTapped))
    } matching: { issue in
      message(of: issue).contains("received a child action while its child state was nil, and ignored it.")
        && message(of: issue).contains("Likely causes:")
    }
    #expect(store.state.contacts.count == 1)
  }

  @Test func eachContactIsEditedInPlaceById() async {
    let blob = Contact(id: UUID(0), name: "Blob")
    let blobJr = Contact(id: UUID(1), name: "Blob Jr.")
    let store = TestStore(
      initialState: Contacts.State(contacts: [ContactDetail.State(contact: blob), ContactDetail.State(contact: blobJr)])
    ) { Contacts() }
    await store.send(.contacts(.element(id: blobJr.id, action: .favoriteToggled))) {
      $0.contacts[id: blobJr.id]?.isFavorite = true
    }
    await store.send(.contacts(.element(id: blob.id, action: .nameChanged("Blob Sr.")))) {
      $0.contacts[id: blob.id]?.contact.name = "Blob Sr."
    }
  }

  @Test func anActionForAMissingContactIsReported() async {
    let store = TestStore(initialState: Contacts.State()) { Contacts() }
    await withKnownIssue {
      await store.send(.contacts(.element(id: UUID(7), action: .favoriteToggled)))
    } matching: { issue in
      message(of: issue).contains("received an action for an element with id 00000000-0000-0000-0000-000000000007 that is not in the collection")
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
      $0.contacts.addContact = AddContact.State(contact: Contact(id: UUID(0), name: ""))
    }
    await store.send(.contacts(.addContact(.saveButtonTapped)))
    await store.receive(\.contacts.addContact.delegate.saveContact) {
      $0.contacts.contacts = [ContactDetail.State(contact: Contact(id: UUID(0), name: ""))]
      $0.contacts.addContact = nil
    }
  }
}

/// The text an issue was reported with.
func message(of issue: Issue) -> String {
  issue.comments.map(\.rawValue).joined(separator: "\n")
}
