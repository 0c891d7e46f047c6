import Dependencies

extension Reducer {
  /// This reducer, and the effects it returns, with one dependency set to `value`: a child run
  /// with a dependency of its own (`Scope(…) { Child().dependency(\.uuid, .incrementing) }`).
  public func dependency<Value>(
    _ keyPath: WritableKeyPath<DependencyValues, Value> & Sendable, _ value: Value
  ) -> DependencyWritingReducer<Self> where Value: Sendable {
    DependencyWritingReducer(base: self) { $0[keyPath: keyPath] = value }
  }

  /// This reducer, and the effects it returns, with one dependency changed by `transform` from
  /// what it is where the reducer runs. `transform` runs at every action: it should not create
  /// the dependency, only adjust it.
  public func transformDependency<Value>(
    _ keyPath: WritableKeyPath<DependencyValues, Value> & Sendable,
    transform: @escaping @Sendable (_ dependency: inout Value) -> Void
  ) -> DependencyWritingReducer<Self> {
    DependencyWritingReducer(base: self) { transform(&$0[keyPath: keyPath]) }
  }
}

/// The reducer `dependency(_:_:)` and `transformDependency(_:transform:)` return. Chained calls
/// make one of these, so that an action sets the dependencies once.
public struct DependencyWritingReducer<Base: Reducer>: Reducer {
  @usableFromInline let base: Base
  @usableFromInline let update: @Sendable (inout DependencyValues) -> Void

  init(base: Base, update: @escaping @Sendable (inout DependencyValues) -> Void) {
    self.base = base
    self.update = update
  }

  /// Effects run with the values current when they are made (`Effect.run` keeps them), so the
  /// ones returned here keep the change too.
  @inlinable
  public func reduce(into state: inout Base.State, action: Base.Action) -> Effect<Base.Action> {
    withDependencies(update) { base.reduce(into: &state, action: action) }
  }

  public func dependency<Value: Sendable>(
    _ keyPath: WritableKeyPath<DependencyValues, Value> & Sendable, _ value: Value
  ) -> Self {
    Self(base: base) { [update] in
      update(&$0)
      $0[keyPath: keyPath] = value
    }
  }

  public func transformDependency<Value>(
    _ keyPath: WritableKeyPath<DependencyValues, Value> & Sendable,
    transform: @escaping @Sendable (_ dependency: inout Value) -> Void
  ) -> Self {
    Self(base: base) { [update] in
      update(&$0)
      transform(&$0[keyPath: keyPath])
    }
  }
}

extension DependencyWritingReducer: Sendable where Base: Sendable {}
