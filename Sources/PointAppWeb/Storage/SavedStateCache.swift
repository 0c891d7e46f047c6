import Foundation
import PointApp
import Synchronization

/// The decoded states of recently seen users, each kept with the exact bytes of the file it was
/// read from (or saved as) and the surveys its archived answers were loaded for. A state is reused
/// only when the file still holds those bytes, so a write by another process, a failed write or an
/// edited file is never missed; decoding JSON is the most expensive step of a request otherwise.
final class SavedStateCache: Sendable {
  /// A reference, and the saved part only: a dictionary keeps its values inline in up to twice
  /// as many slots as entries, and a whole `AppFeature.State` is a kilobyte (P4: 2,000 users a
  /// generation cost 8.6 MB inline, BENCHMARKS.md).
  private final class Entry: Sendable {
    let bytes: Data
    let surveys: [SurveyID]
    let saved: SavedState.File

    init(bytes: Data, surveys: [SurveyID], saved: SavedState.File) {
      (self.bytes, self.surveys, self.saved) = (bytes, surveys, saved)
    }
  }

  private let entries: Mutex<RecentlyUsed<UserID, Entry>>

  /// Keeps the states of the last `kept` to twice `kept` users seen.
  init(kept: Int = 500) {
    entries = Mutex(RecentlyUsed(generation: kept))
  }

  /// The state saved as `bytes`, with the archived answers to `surveys`, if it is known.
  func state(of user: UserID, bytes: Data, surveys: [SurveyID]) -> AppFeature.State? {
    entries.withLock { entries in
      guard let entry = entries[user], entry.surveys == surveys, entry.bytes == bytes else { return nil }
      return entry.saved.state
    }
  }

  /// Remembers the user's state as saved in `bytes`: its user data only, with archived answers to
  /// `surveys` only.
  func remember(_ user: UserID, bytes: Data, state: AppFeature.State, surveys: [SurveyID]) {
    var saved = SavedState.File(state)
    saved.progress.archivedAnswers = state.progress.archivedAnswers.filter { surveys.contains($0.key) }
    let entry = Entry(bytes: bytes, surveys: surveys, saved: saved)
    entries.withLock { $0[user] = entry }
  }
}
