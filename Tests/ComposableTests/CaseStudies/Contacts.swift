import CasePaths
import Composable
import Dependencies
import Foundation
import IdentifiedCollections

struct Contact: Equatable, Identifiable, Sendable {
  let id: UUID
  var name: String
}

/// Seed 002's contacts: add through a presented form (a `Destination`), delete after an alert,
/// and push a contact's detail onto a stack, from which it can be deleted too.
struct Contacts: Reducer {
  struct State: Equatable, Sendable {
    var contacts: IdentifiedArrayOf<Contact> = []
    @Presents var destination: Destination.State?
    var path = StackState<ContactDetail.State>()
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case addButtonTapped
    case deleteButtonTapped(id: Contact.ID)
    case destination(PresentationAction<Destination.Action>)
    case path(StackAction<ContactDetail.State, ContactDetail.Action>)

    @CasePathable
    enum Alert: Equatable, Sendable {
      case confirmDeletion(id: Contact.ID)
    }
  }

  @Dependency(\.uuid) var uuid

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .addButtonTapped:
        state.destination = .addContact(AddContact.State(contact: Contact(id: uuid(), name: "")))
        return .none
      case let .destination(.presented(.addContact(.delegate(.saveContact(contact))))):
        state.contacts.append(contact)
        state.destination = nil
        return .none
      case let .destination(.presented(.alert(.confirmDeletion(id)))):
        state.contacts.remove(id: id)
        return .none
      case .destination:
        return .none
      case let .deleteButtonTapped(id):
        state.destination = .alert(.deleteConfirmation(id: id))
        return .none
      case let .path(.element(id, .delegate(.confirmDeletion))):
        guard let detail = state.path[id: id] else { return .none }
        state.contacts.remove(id: detail.contact.id)
        state.path.pop(from: id)
        return .none
      case .path:
        return .none
      }
    }
    .ifLet(\.$destination, action: \.destination) { Destination() }
    .forEach(\.path, action: \.path) { ContactDetail() }
  }

  /// Where the contacts list can lead: the add form, or the deletion alert.
  struct Destination: Reducer {
    @CasePathable
    enum State: Equatable, Sendable {
      case addContact(AddContact.State)
      case alert(AlertState<Contacts.Action.Alert>)
    }

    @CasePathable
    enum Action: Equatable, Sendable {
      case addContact(AddContact.Action)
      case alert(Contacts.Action.Alert)
    }

    var body: some ReducerOf<Self> {
      Scope(state: \.addContact, action: \.addContact) { AddContact() }
    }
  }
}

extension AlertState where Action == Contacts.Action.Alert {
  static func deleteConfirmation(id: Contact.ID) -> Self {
    AlertState(
      title: "Are you sure?",
      buttons: [
        ButtonState(role: .destructive, action: .confirmDeletion(id: id), label: "Delete"),
        ButtonState(role: .cancel, label: "Cancel"),
      ]
    )
  }
}

/// The add form. While it is open it suggests a name from a slow service; closing the form
/// cancels the suggestion.
struct AddContact: Reducer {
  struct State: Equatable, Sendable {
    var contact: Contact
    var isSuggesting = false
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case nameChanged(String)
    case suggestButtonTapped
    case suggestionResponse(String)
    case saveButtonTapped
    case cancelButtonTapped
    case delegate(Delegate)

    @CasePathable
    enum Delegate: Equatable, Sendable {
      case saveContact(Contact)
    }
  }

  @Dependency(\.nameSuggestion) var nameSuggestion
  @Dependency(\.dismiss) var dismiss

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case let .nameChanged(name):
        state.contact.name = name
        return .none
      case .suggestButtonTapped:
        state.isSuggesting = true
        return .run { send in
          await send(.suggestionResponse(try await nameSuggestion.suggest()))
        }
      case let .suggestionResponse(name):
        state.isSuggesting = false
        state.contact.name = name
        return .none
      case .saveButtonTapped:
        return .send(.delegate(.saveContact(state.contact)))
      case .cancelButtonTapped:
        // The form closes itself: its parent need not know about the button.
        return .run { _ in await dismiss() }
      case .delegate:
        return .none
      }
    }
  }
}

/// One contact, pushed on the stack. Deleting it asks first, in its own alert, and then tells the
/// list through a delegate action.
struct ContactDetail: Reducer {
  struct State: Equatable, Sendable {
    var contact: Contact
    @Presents var alert: AlertState<Action.Alert>?
  }

  @CasePathable
  enum Action: Equatable, Sendable {
    case deleteButtonTapped
    case alert(PresentationAction<Alert>)
    case delegate(Delegate)

    @CasePathable
    enum Alert: Equatable, Sendable {
      case confirmDeletion
    }

    @CasePathable
    enum Delegate: Equatable, Sendable {
      case confirmDeletion
    }
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .deleteButtonTapped:
        state.alert = AlertState(
          title: "Delete \(state.contact.name)?",
          buttons: [
            ButtonState(role: .destructive, action: .confirmDeletion, label: "Delete"),
            ButtonState(role: .cancel, label: "Cancel"),
          ]
        )
        return .none
      case .alert(.presented(.confirmDeletion)):
        return .send(.delegate(.confirmDeletion))
      case .alert, .delegate:
        return .none
      }
    }
    .ifLet(\.$alert, action: \.alert)
  }
}

/// A name suggestion from a slow service.
struct NameSuggestionClient: Sendable {
  var suggest: @Sendable () async throws -> String
}

extension NameSuggestionClient: TestDependencyKey {
  static let testValue = Self(suggest: unimplemented("NameSuggestionClient.suggest", placeholder: ""))
}

extension DependencyValues {
  var nameSuggestion: NameSuggestionClient {
    get { self[NameSuggestionClient.self] }
    set { self[NameSuggestionClient.self] = newValue }
  }
}
