import ComposableTesting
import Dependencies
import Foundation
import PointApp
import Testing

struct ExchangeTests {
  func makeStore(balance: PointAmount) -> TestStoreOf<Exchange> {
    var ids = 100
    return TestStore(initialState: Exchange.State(progress: .answered([.fixture(reward: balance)], ids: &ids))) {
      Exchange()
    } withDependencies: {
      $0.date.now = noon
      $0.uuid = .incrementing
    }
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
