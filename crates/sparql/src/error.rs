//! What can go wrong between a query's text and its results.

/// An error of gsi-sparql.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The text is not SPARQL.
    #[error("the query is not valid SPARQL: {0}")]
    Syntax(String),
    /// The query uses a construct outside the fragment gsi answers, named here.
    #[error("{0} is outside the SPARQL fragment gsi answers (one basic graph pattern, with FILTERs of =, !=, sameTerm, isIRI, isLiteral, isBlank and LANG, under SELECT, ASK or SELECT (COUNT(*) AS ?n), ORDER BY on variables)")]
    Unsupported(String),
    /// The data graph cannot answer SPARQL.
    #[error("{0}")]
    Data(String),
    /// These results have no form in the requested format.
    #[error("{0}")]
    Format(String),
    /// The query graph could not be built.
    #[error(transparent)]
    Graph(#[from] gsi_graph::Error),
    /// The matcher failed.
    #[error(transparent)]
    Match(#[from] gsi_core::Error),
    /// The query ran past its deadline (`MatchOptions::deadline`).
    #[error("the query ran past its deadline")]
    Timeout,
    /// The query's interrupt was set (`MatchOptions::interrupt`).
    #[error("the query was interrupted")]
    Interrupted,
    /// Writing the results failed.
    #[error("writing the results: {0}")]
    Write(#[from] std::io::Error),
}

impl Error {
    /// Whether the error is the user's input: the query, the data or the chosen format.
    pub fn is_input(&self) -> bool {
        matches!(
            self,
            Error::Syntax(_) | Error::Unsupported(_) | Error::Data(_) | Error::Format(_)
        )
    }
}

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
