//! Enums written as names (`cc = "cubic"`): one macro so that every one
//! refuses an unknown name the same way, listing the names it knows.

/// Defines `pub enum $name` whose variants are written as the given strings,
/// with `ALL`, `name()`, `parse()`, and serde as those strings. `$what`
/// names the thing in messages ("congestion control").
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident ($what:literal) {
            $($(#[$vmeta:meta])* $variant:ident = $text:literal,)+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];

            pub fn name(&self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            pub fn parse(s: &str) -> Option<$name> {
                Self::ALL.iter().copied().find(|v| v.name() == s)
            }

            /// "a, b, c": the names, for messages.
            pub fn names() -> String {
                Self::ALL.iter().map(|v| v.name()).collect::<Vec<_>>().join(", ")
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl serde::de::Visitor<'_> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        write!(f, "a {} name, one of {}", $what, $name::names())
                    }
                    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<$name, E> {
                        $name::parse(s).ok_or_else(|| {
                            E::custom(format!(
                                "{s:?} is not a known {}; expected one of {}",
                                $what,
                                $name::names()
                            ))
                        })
                    }
                }
                d.deserialize_str(V)
            }
        }
    };
}

pub(crate) use named_enum;
