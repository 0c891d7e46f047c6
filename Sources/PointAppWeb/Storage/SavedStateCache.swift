import Foundation
import PointApp
import Synchronization

/// The decoded states of recently seen users, each kept with the exact bytes of the file it was
/// read from (or saved as) and the surveys its archived answers were loaded for. A state is reused
/// only when the file still holds those bytes, so a write by another process, a failed write or an
/// edited file is never missed; decoding JSON is the most expensive step of a request otherwise.
final class SavedStateCache: Sendable {
  private struct Entry {
    let bytes: Data
    let surveys: [SurveyID]
    let state: AppFeature.State
  }

  /// About the last two to four thousand users seen: a busy instance's writers (P2's 3,500) find
  /// theirs decoded; the 7 MB it costs P4's 10,000 new visitors is measured in BENCHMARKS.md.
  private let entries = Mutex(RecentlyUsed<UserID, Entry>(generation: 2000))

  init() {}

  /// The state saved as `bytes`, with the archived answers to `surveys`, if it is known.
  func state(of user: UserID, bytes: Data, surveys: [SurveyID]) -> AppFeature.State? {
    entries.withLock { entries in
      guard let entry = entries[user], entry.surveys == surveys, entry.bytes == bytes else { return nil }
      return entry.state
    }
  }

  /// Remembers the user's state as saved in `bytes`: its user data only, with archived answers to
  /// `surveys` only.
  func remember(_ user: UserID, bytes: Data, state: AppFeature.State, surveys: [SurveyID]) {
    var loaded = SavedState.userData(of: state)
    loaded.progress.archivedAnswers = state.progress.archivedAnswers.filter { surveys.contains($0.key) }
    let entry = Entry(bytes: bytes, surveys: surveys, state: loaded)
    entries.withLock { $0[user] = entry }
  }
}
