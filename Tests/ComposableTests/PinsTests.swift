import Clocks
import ComposableTesting
import Dependencies
import Testing

/// Seed 000's tests: the list loads on appear; tapping an item presents its detail, which loads
/// its notes; dismissing the detail cancels that load.
struct PinsTests {
  static let items = [Item(id: 1, title: "テスト"), Item(id: 2, title: "ピン")]

  @Test func fetchItemsOnAppear() async {
    let store = TestStore(initialState: FeatureAReducer.State()) {
      FeatureAReducer()
    } withDependencies: {
      $0.apiClient.fetchItems = { Self.items }
    }
    await store.send(.onAppear) { $0.isLoading = true }
    await store.receive(.fetchItemsResponse(.success(Self.items))) {
      $0.isLoading = false
      $0.items = Self.items
    }
  }

  @Test func tappingAnItemPresentsItsDetail() async {
    let store = TestStore(initialState: AppReducer.State(featureA: FeatureAReducer.State(items: Self.items))) {
      AppReducer()
    } withDependencies: {
      $0.apiClient.fetchNotes = { "notes of \($0)" }
    }
    await store.send(.featureA(.itemTapped(Self.items[1]))) {
      $0.destination = .featureB(FeatureBReducer.State(item: Self.items[1]))
    }
    await store.send(\.destination.presented.featureB.onAppear)
    await store.receive(\.destination.presented.featureB.notesResponse) {
      $0.destination = .featureB(FeatureBReducer.State(item: Self.items[1], notes: "notes of 2"))
    }
    await store.send(\.destination.dismiss) { $0.destination = nil }
  }

  @Test func dismissingTheDetailCancelsItsLoad() async {
    let clock = TestClock()
    let store = TestStore(initialState: AppReducer.State(featureA: FeatureAReducer.State(items: Self.items))) {
      AppReducer()
    } withDependencies: {
      $0.continuousClock = clock
      $0.apiClient.fetchNotes = { id in
        try await clock.sleep(for: .seconds(2))
        return "notes of \(id)"
      }
    }
    await store.send(.featureA(.itemTapped(Self.items[0]))) {
      $0.destination = .featureB(FeatureBReducer.State(item: Self.items[0]))
    }
    await store.send(\.destination.presented.featureB.onAppear)
    await clock.advance(by: .seconds(1))
    await store.send(\.destination.dismiss) { $0.destination = nil }
    await clock.advance(by: .seconds(1))
    // Nothing arrives, and nothing is left running: an uncancelled load would fail both.
    await store.finish()
  }
}
