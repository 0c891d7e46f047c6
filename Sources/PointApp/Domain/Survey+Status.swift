import Foundation

extension Survey {
  /// Where a survey stands for the people who run it.
  public enum Status: String, Equatable, Sendable {
    /// 公開予定: published later.
    case scheduled
    /// 公開中: answerable.
    case open
    /// 満了: its quota is in.
    case full
    /// 終了: its deadline passed, or it was closed early.
    case closed

    public var title: String {
      switch self {
      case .scheduled: "公開予定"
      case .open: "公開中"
      case .full: "満了"
      case .closed: "終了"
      }
    }
  }

  public func status(at date: Date) -> Status {
    guard isPublished(at: date) else { return .scheduled }
    switch closure(at: date) {
    case .deadlinePassed: return .closed
    case .full: return .full
    case nil: return .open
    }
  }

  /// The same survey with its deadline at `date`: closed from then on, for everyone who has not
  /// answered it. A survey that closes earlier already keeps its deadline.
  public func closed(at date: Date) -> Survey {
    guard expiresAt.map({ $0 > date }) ?? true else { return self }
    return changing(expiresAt: date, version: version)
  }

  /// The same survey open to anyone: no targeting, no quota cells (a preview's).
  public var forEveryone: Survey {
    changing(expiresAt: expiresAt, version: version, targeting: nil, cells: nil)
  }

  /// The same survey as its version `version`.
  public func numbered(_ version: Int) -> Survey {
    changing(expiresAt: expiresAt, version: version)
  }

  /// The same survey, its places taken included, with another deadline and version (and, for a
  /// preview, its audience): the one copy of a survey field by field.
  private func changing(expiresAt: Date?, version: Int) -> Survey {
    changing(expiresAt: expiresAt, version: version, targeting: targeting, cells: cells)
  }

  private func changing(expiresAt: Date?, version: Int, targeting: Targeting?, cells: QuotaCells?) -> Survey {
    var changed = Survey(
      id: id, title: title, description: description, category: category, questions: questions, reward: reward,
      estimatedMinutes: estimatedMinutes, publishedAt: publishedAt, expiresAt: expiresAt, targeting: targeting,
      screening: screening, quality: quality, quota: quota, version: version, shufflesQuestions: shufflesQuestions, cells: cells
    )
    changed.placesTaken = placesTaken
    if cells != nil { changed.cellsTaken = cellsTaken }
    return changed
  }
}
