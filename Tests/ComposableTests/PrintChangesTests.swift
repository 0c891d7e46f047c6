import Composable
import ComposableTesting
import ConcurrencyExtras
import Testing

/// `_printChanges()`, as TCA documents it: each action a reducer receives, then the change it
/// made to the state as a diff, written where the printer says (here, collected).
struct PrintChangesTests {
  @Test func eachActionAndItsDiffAreWritten() async {
    let written = LockIsolated<[String]>([])
    let store = TestStore(initialState: Counter.State()) {
      Counter()._printChanges(.dump { text in written.withValue { $0.append(text) } })
    }
    await store.send(.incrementButtonTapped) { $0.count = 1 }
    await store.send(.factAlertDismissed)
    #expect(written.value == [
      """
      received action:
        - ComposableTests.Counter.Action.incrementButtonTapped
        ▿ ComposableTests.Counter.State
      −   - count: 0
      +   - count: 1
      """,
      """
      received action:
        - ComposableTests.Counter.Action.factAlertDismissed
        (No state changes)
      """,
    ])
  }

  @Test func actionLabelsWriteOnlyTheActions() async {
    let written = LockIsolated<[String]>([])
    let store = TestStore(initialState: Counter.State()) {
      Counter()._printChanges(.actionLabels { text in written.withValue { $0.append(text) } })
    }
    await store.send(.incrementButtonTapped) { $0.count = 1 }
    #expect(written.value == ["received action: ComposableTests.Counter.Action.incrementButtonTapped"])
  }

  /// A change deep in the state is written under the lines that hold it, each once; its
  /// unchanged siblings, and their own fields, are not.
  @Test func aNestedChangeIsWrittenUnderItsParents() {
    var after = PrintedShelf()
    after.label = "B"
    after.books[1].read = true
    let written = LockIsolated<[String]>([])
    ChangePrinter<PrintedShelf, Int>.dump { text in written.withValue { $0.append(text) } }.printChange(1, PrintedShelf(), after)
    #expect(written.value == [
      """
      received action:
        - 1
        ▿ ComposableTests.PrintedShelf
      −   - label: "A"
      +   - label: "B"
          ▿ books: 2 elements
            ▿ ComposableTests.PrintedBook
      −       - read: false
      +       - read: true
      """
    ])
  }

  /// A change inside a field and one of a field after it come in the dump's order, each pair of
  /// lines together, each under its own parents.
  @Test func changesComeInTheDumpsOrder() {
    let before = PrintedList(items: [PrintedItem(n: 1)], flag: true)
    let after = PrintedList(items: [PrintedItem(n: 2)], flag: false)
    let written = LockIsolated<[String]>([])
    ChangePrinter<PrintedList, Int>.dump { text in written.withValue { $0.append(text) } }.printChange(1, before, after)
    #expect(written.value == [
      """
      received action:
        - 1
        ▿ ComposableTests.PrintedList
          ▿ items: 1 element
            ▿ ComposableTests.PrintedItem
      −       - n: 1
      +       - n: 2
      −   - flag: true
      +   - flag: false
      """
    ])
  }

  /// A `nil` printer writes nothing, and the reducer is unchanged.
  @Test func noPrinterNoOutput() async {
    let store = TestStore(initialState: Counter.State()) { Counter()._printChanges(nil) }
    await store.send(.incrementButtonTapped) { $0.count = 1 }
  }
}

struct PrintedShelf: Equatable {
  var label = "A"
  var books = [PrintedBook(title: "坊っちゃん", read: false), PrintedBook(title: "こころ", read: false)]
}

struct PrintedBook: Equatable {
  var title: String
  var read: Bool
}

struct PrintedList: Equatable {
  var items: [PrintedItem]
  var flag: Bool
}

struct PrintedItem: Equatable {
  var n: Int
}
