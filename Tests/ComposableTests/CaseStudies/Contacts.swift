import CasePaths
import Composable
import Dependencies
import Foundation
import IdentifiedCollections

struct Contact: Equatable, Identifiable, Sendable {
  let id: UUID
  var name: String
}

/// Seed 002's contacts: add through a presented form that reports back with a delegate action,
/// delete after a confirmation, edit each contact's detail in place.
struct Contacts: Reducer {
  struct State: Equatable, Sendable {
    var contacts: IdentifiedArrayOf<ContactDetail.State> = []
    var addContact: AddContact.State?
    var deleteConfirmation: DeleteConfirmation?
  }

  /// The confirmation dialog shown before a contact is deleted.
  struct DeleteConfirmation: Equatable, Sendable {
    let contactID: Contact.ID
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case addButtonTapped
    case addContact(AddContact.Action)
    case deleteButtonTapped(id: Contact.ID)
    case deleteConfirmation(DeleteConfirmationAction)
    case contacts(IdentifiedActionOf<ContactDetail>)
  }

  @CasePathable
  enum DeleteConfirmationAction: Equatable, Sendable {
    case confirmButtonTapped
    case cancelButtonTapped
  }

  @Dependency(\.uuid) var uuid

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .addButtonTapped:
        state.addContact = AddContact.State(contact: Contact(id: uuid(), name: ""))
        return .none
      case let .addContact(.delegate(.saveContact(contact))):
        state.contacts.append(ContactDetail.State(contact: contact))
        state.addContact = nil
        return .none
      case .addContact(.delegate(.cancel)):
        state.addContact = nil
        return .none
      case .addContact:
        return .none
      case let .deleteButtonTapped(id):
        state.deleteConfirmation = DeleteConfirmation(contactID: id)
        return .none
      case .deleteConfirmation(.confirmButtonTapped):
        if let id = state.deleteConfirmation?.contactID {
          state.contacts.remove(id: id)
        }
        state.deleteConfirmation = nil
        return .none
      case .deleteConfirmation(.cancelButtonTapped):
        state.deleteConfirmation = nil
        return .none
      case .contacts:
        return .none
      }
    }
    .ifLet(\.addContact, action: \.addContact) { AddContact() }
    .ifLet(\.deleteConfirmation, action: \.deleteConfirmation)
    .forEach(\.contacts, action: \.contacts) { ContactDetail() }
  }
}

struct AddContact: Reducer {
  struct State: Equatable, Sendable {
    var contact: Contact
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case nameChanged(String)
    case saveButtonTapped
    case cancelButtonTapped
    case delegate(Delegate)

    @CasePathable
    enum Delegate: Equatable, Sendable {
      case saveContact(Contact)
      case cancel
    }
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .nameChanged(name):
        state.contact.name = name
        return .none
      case .saveButtonTapped:
        return .send(.delegate(.saveContact(state.contact)))
      case .cancelButtonTapped:
        return .send(.delegate(.cancel))
      case .delegate:
        return .none
      }
    }
  }
}

struct ContactDetail: Reducer {
  struct State: Equatable, Identifiable, Sendable {
    var contact: Contact
    var isFavorite = false
    var id: Contact.ID { contact.id }
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case favoriteToggled
    case nameChanged(String)
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .favoriteToggled:
        state.isFavorite.toggle()
      case let .nameChanged(name):
        state.contact.name = name
      }
      return .none
    }
  }
}

/// Both case studies side by side, each scoped to its part of the state.
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
