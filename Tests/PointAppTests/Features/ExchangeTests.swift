import ComposableTesting
import Dependencies
import Foundation
import PointApp
import Testing

struct ExchangeTests {
  /// Signed in, the password typed `confirmed` seconds before noon (`nil`: not in this session).
  func makeStore(
    balance: PointAmount, confirmed: TimeInterval? = 60, _ accounts: (inout AccountClient) -> Void = { _ in }
  ) -> TestStoreOf<Exchange> {
    var ids = 100
    let state = Exchange.State(
      progress: .answered([.fixture(reward: balance)], ids: &ids), account: EmailAddress("hanako@example.jp"),
      passwordConfirmedAt: confirmed.map { noon - $0 }
    )
    return TestStore(initialState: state) {
      Exchange()
    } withDependencies: {
      $0.date.now = noon
      $0.uuid = .incrementing
      accounts(&$0.accounts)
    }
  }

  @Test func aGuestCannotExchange() async {
    var ids = 100
    let store = TestStore(initialState: Exchange.State(progress: .answered([.fixture(reward: 50_000)], ids: &ids))) {
      Exchange()
    } withDependencies: {
      $0.date.now = noon
    }
    await store.send(.optionSelected(ExchangeOption.all[0].id))
    await store.receive(.delegate(.signInRequired))
    await store.send(.exchangeButtonTapped(ExchangeOption.all[0].id, ledgerCount: 1))
    await store.receive(.delegate(.signInRequired))
    #expect(store.state.progress.ledger.balance == 50_000)
  }

  @Test func aPasswordTypedTenMinutesAgoOrMoreIsAskedForAgain() async {
    let gift = ExchangeOption.all[0]
    let recent = makeStore(balance: 3_200, confirmed: Exchange.passwordGrace - 1)
    await recent.send(.optionSelected(gift.id)) { $0.confirmation = .exchange(gift, ledgerCount: 1) }
    let stale = makeStore(balance: 3_200, confirmed: Exchange.passwordGrace)
    await stale.send(.optionSelected(gift.id)) {
      $0.confirmation = .exchange(gift, ledgerCount: 1)
      $0.asksPassword = true
    }
    await stale.send(.exchangeButtonTapped(gift.id, ledgerCount: 1)) { $0.confirmation = nil }
    await stale.receive(.delegate(.passwordRefused(.passwordRequired)))
    #expect(stale.state.progress.ledger.balance == 3_200)
  }

  @Test func theRightPasswordLetsTheExchangeThroughAndAWrongOneDoesNot() async throws {
    let gift = ExchangeOption.all[0]
    let store = makeStore(balance: 3_200, confirmed: nil) {
      $0.confirmPassword = { password in
        guard password == "correct horse battery" else { throw AccountError.wrongPassword }
        return noon
      }
    }
    await store.send(.exchangeButtonTapped(gift.id, ledgerCount: 1, password: "wrong guess"))
    await store.receive(.passwordChecked(.failure(.wrongPassword), gift.id, ledgerCount: 1))
    await store.receive(.delegate(.passwordRefused(.wrongPassword)))
    await store.send(.exchangeButtonTapped(gift.id, ledgerCount: 1, password: "correct horse battery"))
    await store.receive(.passwordChecked(.success(noon), gift.id, ledgerCount: 1)) {
      $0.passwordConfirmedAt = noon
      try $0.progress.exchange(gift, id: TransactionID(UUID(0)), at: noon)
    }
    await store.receive(.delegate(.exchanged(gift)))
    #expect(store.state.progress.ledger.balance == 200)
  }

  @Test func exchangingDebitsTheCost() async throws {
    let store = makeStore(balance: 3_200)
    let gift = ExchangeOption.all[0]
    #expect(store.state.canAfford(gift))
    await store.send(.exchangeButtonTapped(gift.id, ledgerCount: 1)) {
      try $0.progress.exchange(gift, id: TransactionID(UUID(0)), at: noon)
    }
    await store.receive(.delegate(.exchanged(gift)))
    #expect(store.state.progress.ledger.balance == 200)
    #expect(!store.state.canAfford(gift))
  }

  @Test func anExchangeBeyondTheBalanceIsRefused() async {
    let store = makeStore(balance: 2_999)
    await store.send(.exchangeButtonTapped(ExchangeOption.all[0].id, ledgerCount: 1))
    await store.receive(.delegate(.exchangeRefused(.insufficientBalance)))
    #expect(store.state.progress.ledger.balance == 2_999)
  }

  @Test func anUnknownOptionIsRefused() async {
    let store = makeStore(balance: 50_000)
    await store.send(.pageRequested)
    await store.send(.exchangeButtonTapped(ExchangeOption.ID("yacht"), ledgerCount: 1))
    await store.receive(.delegate(.exchangeRefused(.unknownOption)))
  }

  @Test func choosingAnOptionAsksFirst() async {
    let store = makeStore(balance: 3_200)
    let gift = ExchangeOption.all[0]
    await store.send(.optionSelected(gift.id)) { $0.confirmation = .exchange(gift, ledgerCount: 1) }
    #expect(store.state.confirmation?.buttons.map(\.action) == [.exchangeButtonTapped(gift.id, ledgerCount: 1), nil])
    await store.send(.exchangeButtonTapped(gift.id, ledgerCount: 1)) {
      $0.confirmation = nil
      try $0.progress.exchange(gift, id: TransactionID(UUID(0)), at: noon)
    }
    await store.receive(.delegate(.exchanged(gift)))
  }

  @Test func aConfirmationSentAgainAfterTheLedgerMovedSpendsNothing() async {
    let store = makeStore(balance: 6_400)
    let gift = ExchangeOption.all[0]
    await store.send(.exchangeButtonTapped(gift.id, ledgerCount: 1)) {
      try $0.progress.exchange(gift, id: TransactionID(UUID(0)), at: noon)
    }
    await store.receive(.delegate(.exchanged(gift)))
    // The same confirmation again (Back, or a second tab): the balance still covers it.
    await store.send(.exchangeButtonTapped(gift.id, ledgerCount: 1))
    await store.receive(.delegate(.exchangeRefused(.staleConfirmation)))
    #expect(store.state.progress.ledger.balance == 3_400)
  }

  @Test func choosingAnUnknownOptionAsksNothing() async {
    let store = makeStore(balance: 3_200)
    await store.send(.optionSelected(ExchangeOption.ID("yacht")))
    await store.receive(.delegate(.exchangeRefused(.unknownOption)))
  }
}
