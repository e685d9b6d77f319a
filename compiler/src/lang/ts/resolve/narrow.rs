//! Narrowed receivers: the member types of a union that a discriminant comparison or an `in`
//! test leaves, and whether the front end could tell which (SPEC 11.4).

use super::*;

impl Resolver<'_> {
    /// The member types of `base`'s union that a discriminant comparison of their property
    /// `key` with `lits` keeps (`keep`: those whose `key` may equal one of them; else those
    /// whose `key` may differ from all), and whether that was decided: when a member type's
    /// `key` is not declared with string literal types, `base`'s members, undecided.
    pub(super) fn narrow(
        &self,
        m: usize,
        base: &Expr,
        key: &str,
        lits: &[String],
        keep: bool,
        depth: usize,
    ) -> (Recv, bool) {
        let r = self.eval(m, base, depth + 1);
        let mut parts = Vec::new();
        flatten_union(&r, &mut parts);
        if parts.len() < 2 {
            return (r, true);
        }
        let values: Vec<Option<Rc<[String]>>> = parts
            .iter()
            .map(|p| self.discriminant_values(p, key, depth + 1))
            .collect();
        // No member type declares `key` with literal types: not a discriminant, no narrowing.
        if values.iter().all(Option::is_none) {
            return (r, true);
        }
        let answers: Vec<Option<bool>> = values
            .iter()
            .map(|vals| {
                let vals = vals.as_ref()?;
                let any = vals.iter().any(|v| lits.contains(v));
                let all = vals.iter().all(|v| lits.contains(v));
                Some((keep && any) || (!keep && !all))
            })
            .collect();
        keep_parts(&r, &answers)
    }

    /// The member types of `base`'s union that declare property `key` (`"key" in base`), and
    /// whether that was decided: a member type whose members are not all known may have it,
    /// and then `base`'s members are the answer, undecided.
    pub(super) fn narrow_has(
        &self,
        m: usize,
        base: &Expr,
        key: &str,
        depth: usize,
    ) -> (Recv, bool) {
        let r = self.eval(m, base, depth + 1);
        let mut parts = Vec::new();
        flatten_union(&r, &mut parts);
        let answers: Vec<Option<bool>> = parts
            .iter()
            .map(|p| match p {
                Recv::Object(_, props) => Some(props.iter().any(|(n, _)| n == key)),
                _ => match self.members_named(p, key, Meaning::Value, depth + 1) {
                    Hit::Decls(..) => Some(true),
                    Hit::NotFound { closed: true } => Some(false),
                    _ => None,
                },
            })
            .collect();
        keep_parts(&r, &answers)
    }

    /// The string literals a value of `recv` may hold in its property `key`, when that is
    /// declared with string literal types (through type aliases); `None` otherwise.
    ///
    /// A declaration's values are found once: a `switch` with a case per member of a union
    /// asked every member again for each case (a union of 4,000 took 2.2 s to resolve). They
    /// are reused only where the search that found them stays within the depth bound, and not
    /// after an export lookup that was cut short (as [`Resolver::eval`] reuses receivers).
    fn discriminant_values(&self, recv: &Recv, key: &str, depth: usize) -> Option<Rc<[String]>> {
        let Recv::Members(pm, pd) = recv else {
            return self
                .discriminant_values_now(recv, key, depth)
                .map(Into::into);
        };
        let kept = self
            .discriminants
            .borrow()
            .get(&(*pm, *pd))
            .and_then(|by_key| by_key.get(key))
            .cloned();
        self.kept_within_reach(
            kept,
            depth,
            || {
                self.discriminant_values_now(recv, key, depth)
                    .map(Into::into)
            },
            |values, reach| {
                self.discriminants
                    .borrow_mut()
                    .entry((*pm, *pd))
                    .or_default()
                    .entry(key.to_string())
                    .or_insert_with(|| (values.clone(), reach));
            },
        )
    }

    fn discriminant_values_now(&self, recv: &Recv, key: &str, depth: usize) -> Option<Vec<String>> {
        #[cfg(test)]
        if key == COUNTED_KEY {
            DISCRIMINANT_SEARCHES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        let (tm, t) = match recv {
            Recv::Object(om, props) => (*om, props.iter().find(|(n, _)| n == key)?.1.clone()?),
            _ => match self.members_named(recv, key, Meaning::Value, depth + 1) {
                Hit::Decls(v, true) if v.len() == 1 => {
                    let (dm, dd) = v[0];
                    (dm, self.mods[dm].ts.decls[dd].ty.clone()?)
                }
                _ => return None,
            },
        };
        let mut out = Vec::new();
        self.literal_set(tm, &t, depth + 1, &mut out).then_some(out)
    }

    /// Adds the string literals of type `t` (a literal, a union of them, an alias of one) to
    /// `out`; false when `t` is another type.
    fn literal_set(&self, m: usize, t: &TypeRef, depth: usize, out: &mut Vec<String>) -> bool {
        if self.too_deep(depth) {
            return false;
        }
        match t {
            TypeRef::Literal(s) => {
                out.push(s.clone());
                true
            }
            TypeRef::In(m2, inner) => self.literal_set(*m2, inner, depth + 1, out),
            TypeRef::Union(ts) => ts.iter().all(|t| self.literal_set(m, t, depth + 1, out)),
            // `Exclude<A, B>`, `Extract<A, B>` of literal unions.
            TypeRef::Named {
                head: NameRes::Unbound(n),
                path,
                args,
            } if path.is_empty()
                && args.len() == 2
                && matches!(n.as_str(), "Exclude" | "Extract") =>
            {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                if !self.literal_set(m, &args[0], depth + 1, &mut a)
                    || !self.literal_set(m, &args[1], depth + 1, &mut b)
                {
                    return false;
                }
                let extract = n == "Extract";
                out.extend(a.into_iter().filter(|x| b.contains(x) == extract));
                true
            }
            TypeRef::Named { head, path, args } if path.is_empty() && args.is_empty() => match self
                .bind_res(m, head, Meaning::Type, depth + 1)
            {
                Bound::Decl(am, ad) if self.mods[am].ts.decls[ad].kind == SymbolKind::TypeAlias => {
                    match &self.mods[am].ts.decls[ad].ty {
                        Some(t) => self.literal_set(am, t, depth + 1, out),
                        None => false,
                    }
                }
                _ => false,
            },
            _ => false,
        }
    }
}

/// The member types of the union `r` whose answer (in the order [`flatten_union`] gives them)
/// is yes, and whether every one was decided: a `None` answer leaves `r` whole, undecided. A
/// value that is not a union is itself, decided.
fn keep_parts(r: &Recv, answers: &[Option<bool>]) -> (Recv, bool) {
    let mut parts = Vec::new();
    flatten_union(r, &mut parts);
    if parts.len() < 2 {
        return (r.clone(), true);
    }
    if answers.iter().any(Option::is_none) {
        return (r.clone(), false);
    }
    let mut kept: Vec<Recv> = parts
        .into_iter()
        .zip(answers)
        .filter(|(_, a)| **a == Some(true))
        .map(|(p, _)| p.clone())
        .collect();
    match kept.len() {
        0 => (Recv::Unknown, true),
        1 => (kept.swap_remove(0), true),
        _ => (Recv::Union(kept), true),
    }
}

/// The member types of a union, nested unions flattened; any other receiver is its own part.
fn flatten_union<'r>(r: &'r Recv, out: &mut Vec<&'r Recv>) {
    match r {
        Recv::Union(v) => v.iter().for_each(|x| flatten_union(x, out)),
        other => out.push(other),
    }
}

/// The discriminant property whose searches [`DISCRIMINANT_SEARCHES`] counts (a name no other
/// test uses: resolution runs on the pool's threads, and tests run side by side).
#[cfg(test)]
pub(in crate::lang::ts) const COUNTED_KEY: &str = "countedKind";

/// How many times a member's `countedKind` values were searched.
#[cfg(test)]
pub(in crate::lang::ts) static DISCRIMINANT_SEARCHES: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(0);
