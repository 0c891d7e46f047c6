import Crypto
import Foundation
import PointApp
import Synchronization

/// The decoded states of recently seen users, each kept with the digest (SHA-256) of the bytes of
/// the file it was read from (or saved as) and the surveys its archived answers were loaded for. A
/// state is reused only when the file still holds those bytes, so a write by another process, a
/// failed write or an edited file is never missed; decoding JSON is the most expensive step of a
/// request otherwise. (The digest, not the bytes: 32 bytes a user rather than the file's
/// hundreds to thousands; hashing a guest's file takes about a microsecond.)
final class SavedStateCache: Sendable {
  /// A reference, and the saved part only: a dictionary keeps its values inline in up to twice
  /// as many slots as entries, and a whole `AppFeature.State` is a kilobyte (P4: 2,000 users a
  /// generation cost 8.6 MB inline, BENCHMARKS.md).
  private final class Entry: Sendable {
    let digest: [UInt8]
    let surveys: [SurveyID]
    let saved: SavedState.File

    init(digest: [UInt8], surveys: [SurveyID], saved: SavedState.File) {
      (self.digest, self.surveys, self.saved) = (digest, surveys, saved)
    }
  }

  private struct Kept {
    var entries: RecentlyUsed<UserID, Entry>
    /// The surveys the last entry was loaded for: every entry of the same catalog shares this one
    /// array (a catalog's 29 ids are some 500 bytes).
    var surveys: [SurveyID] = []
  }

  private let kept: Mutex<Kept>

  /// Keeps the states of the last `kept` to twice `kept` users seen.
  init(kept: Int = 2000) {
    self.kept = Mutex(Kept(entries: RecentlyUsed(generation: kept)))
  }

  /// The state saved as `bytes`, with the archived answers to `surveys`, if it is known.
  func state(of user: UserID, bytes: Data, surveys: [SurveyID]) -> AppFeature.State? {
    guard let entry = kept.withLock({ $0.entries[user] }), entry.surveys == surveys, entry.digest.elementsEqual(SHA256.hash(data: bytes)) else { return nil }
    return entry.saved.state
  }

  /// Remembers the user's state as saved in `bytes`: its user data only, with archived answers to
  /// `surveys` only.
  func remember(_ user: UserID, bytes: Data, state: AppFeature.State, surveys: [SurveyID]) {
    var saved = SavedState.File(state)
    saved.progress.archivedAnswers = state.progress.archivedAnswers.filter { surveys.contains($0.key) }
    let digest = Array(SHA256.hash(data: bytes))
    kept.withLock { kept in
      if kept.surveys != surveys { kept.surveys = surveys }
      kept.entries[user] = Entry(digest: digest, surveys: kept.surveys, saved: saved)
    }
  }
}
