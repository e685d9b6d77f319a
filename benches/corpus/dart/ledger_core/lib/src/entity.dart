/// Entities and the repositories that hold them.
library;

import 'dart:async';
import 'dart:collection';

import 'errors.dart';
import 'typedefs.dart';

/// A value with a short, human-readable description.
abstract interface class Describable {
  String describe();
}

/// Anything stored in a [Repository] under a unique key.
abstract interface class Entity {
  String get key;
}

/// A change to the contents of a repository.
sealed class RepositoryEvent<T extends Entity> {
  const RepositoryEvent(this.entity);

  final T entity;
}

final class EntitySaved<T extends Entity> extends RepositoryEvent<T> {
  const EntitySaved(super.entity, {this.replaced = false});

  /// Whether an entity with the same key was overwritten.
  final bool replaced;
}

final class EntityRemoved<T extends Entity> extends RepositoryEvent<T> {
  const EntityRemoved(super.entity);
}

/// Storage for entities of one kind.
abstract class Repository<T extends Entity> {
  const Repository();

  T? find(String key);

  Iterable<T> all();

  void save(T entity);

  T? remove(String key);

  /// Like [find], but throws [NotFoundException] when nothing is stored.
  T require(String key) => find(key) ?? (throw NotFoundException(T, key));

  bool contains(String key) => find(key) != null;

  int get length => all().length;

  bool get isEmpty => length == 0;

  Iterable<T> where(Predicate<T> test) => all().where(test);

  /// The first stored entity that is an [S], if any.
  S? firstOfType<S extends T>() {
    for (final entity in all()) {
      if (entity is S) return entity;
    }
    return null;
  }

  void saveAll(Iterable<T> entities) => entities.forEach(save);

  R fold<R>(R initial, R Function(R accumulator, T entity) combine) =>
      all().fold(initial, combine);
}

/// A [Repository] kept in insertion order in memory.
class InMemoryRepository<T extends Entity> extends Repository<T> {
  InMemoryRepository([Iterable<T> seed = const []]) {
    seed.forEach(save);
  }

  final LinkedHashMap<String, T> _items = LinkedHashMap<String, T>();
  final StreamController<RepositoryEvent<T>> _changes =
      StreamController<RepositoryEvent<T>>.broadcast();

  /// Every save and removal, as it happens.
  Stream<RepositoryEvent<T>> get changes => _changes.stream;

  @override
  T? find(String key) => _items[key];

  @override
  Iterable<T> all() => _items.values;

  @override
  int get length => _items.length;

  @override
  void save(T entity) {
    final replaced = _items.containsKey(entity.key);
    _items[entity.key] = entity;
    _changes.add(EntitySaved<T>(entity, replaced: replaced));
  }

  @override
  T? remove(String key) {
    final removed = _items.remove(key);
    if (removed != null) _changes.add(EntityRemoved<T>(removed));
    return removed;
  }

  Future<void> dispose() => _changes.close();
}

/// The element of [items] with the greatest key, or `null` if empty.
T? maxBy<T, K extends Comparable<K>>(Iterable<T> items, K Function(T) keyOf) {
  T? best;
  K? bestKey;
  for (final item in items) {
    final key = keyOf(item);
    if (bestKey == null || key.compareTo(bestKey) > 0) {
      best = item;
      bestKey = key;
    }
  }
  return best;
}
