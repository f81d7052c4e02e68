//! A small columnar table: what the Python side turns into a DataFrame and
//! Parquet, and what the determinism digest is computed over.

#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    I64(Vec<i64>),
    F64(Vec<f64>),
    Str(Vec<String>),
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::I64(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn new() -> Table {
        Table::default()
    }
    pub fn push(&mut self, name: &str, c: Column) -> &mut Self {
        debug_assert!(self.columns.is_empty() || self.columns[0].1.len() == c.len());
        self.columns.push((name.to_string(), c));
        self
    }
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.1.len())
    }
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.0 == name).map(|c| &c.1)
    }
    pub fn f64s(&self, name: &str) -> &[f64] {
        match self.column(name) {
            Some(Column::F64(v)) => v,
            _ => panic!("no f64 column {name}"),
        }
    }
    pub fn i64s(&self, name: &str) -> &[i64] {
        match self.column(name) {
            Some(Column::I64(v)) => v,
            _ => panic!("no i64 column {name}"),
        }
    }
    pub fn strs(&self, name: &str) -> &[String] {
        match self.column(name) {
            Some(Column::Str(v)) => v,
            _ => panic!("no string column {name}"),
        }
    }

    /// Feeds the table's names and values, bit for bit, into `h`.
    pub fn hash_into(&self, h: &mut Fnv64) {
        self.hash_columns_into(h, |_| true)
    }

    /// [`Table::hash_into`] over the columns `keep` names only.
    pub fn hash_columns_into(&self, h: &mut Fnv64, keep: impl Fn(&str) -> bool) {
        for (name, c) in self.columns.iter().filter(|(n, _)| keep(n)) {
            h.write(name.as_bytes());
            match c {
                Column::I64(v) => v.iter().for_each(|x| h.write(&x.to_le_bytes())),
                Column::F64(v) => v.iter().for_each(|x| h.write(&x.to_bits().to_le_bytes())),
                Column::Str(v) => v.iter().for_each(|x| {
                    h.write(x.as_bytes());
                    h.write(&[0]);
                }),
            }
        }
    }
}

/// FNV-1a, 64 bit: stable across platforms and versions, unlike std's hasher.
pub struct Fnv64(u64);

impl Default for Fnv64 {
    fn default() -> Self {
        Fnv64(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv64 {
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
    pub fn finish(&self) -> u64 {
        self.0
    }
}
