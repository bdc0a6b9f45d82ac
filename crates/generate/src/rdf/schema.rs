//! The schema of the RDF generator: WatDiv's entity kinds, its vocabularies and its 86
//! predicates (`rdf:type` included), each with the kind of its subjects and what its objects
//! are.

/// The namespaces, spelled out in each IRI.
macro_rules! wsdbm {
    ($local:literal) => {
        concat!("http://db.uwaterloo.ca/~galuc/wsdbm/", $local)
    };
}
macro_rules! sorg {
    ($local:literal) => {
        concat!("http://schema.org/", $local)
    };
}
macro_rules! gr {
    ($local:literal) => {
        concat!("http://purl.org/goodrelations/", $local)
    };
}
macro_rules! rev {
    ($local:literal) => {
        concat!("http://purl.org/stuff/rev#", $local)
    };
}
macro_rules! foaf {
    ($local:literal) => {
        concat!("http://xmlns.com/foaf/", $local)
    };
}
macro_rules! mo {
    ($local:literal) => {
        concat!("http://purl.org/ontology/mo/", $local)
    };
}
macro_rules! og {
    ($local:literal) => {
        concat!("http://ogp.me/ns#", $local)
    };
}

/// The namespace of WatDiv's entities and classes: `wsdbm:User0`, `wsdbm:ProductCategory3`.
pub(crate) const WSDBM: &str = wsdbm!("");
/// `rdf:type`.
pub(crate) const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const RDFS_LABEL: &str = "http://www.w3.org/2000/01/rdf-schema#label";

/// An entity kind: entities `wsdbm:{name}{i}`, each of class `wsdbm:{name}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    User,
    Product,
    Review,
    Offer,
    Retailer,
    Purchase,
    Website,
    City,
    Country,
    SubGenre,
    Topic,
    Language,
    AgeGroup,
    Gender,
}

/// How many entities a kind has.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Size {
    /// This many per unit of scale (at least one).
    PerUnit(u32),
    /// This many at every scale.
    Fixed(u32),
}

/// Classes of which each entity of a kind has one more: their name and number
/// (`ProductCategory`, 15: `wsdbm:ProductCategory0` to `14`).
pub(crate) type Subclasses = Option<(&'static str, u32)>;

/// The kinds in the order they are written, with their sizes and subclasses (`Role` for
/// users, `ProductCategory` for products).
pub(crate) const KINDS: [(Kind, &str, Size, Subclasses); 14] = [
    (Kind::User, "User", Size::PerUnit(1000), Some(("Role", 3))),
    (
        Kind::Product,
        "Product",
        Size::PerUnit(250),
        Some(("ProductCategory", 15)),
    ),
    (Kind::Review, "Review", Size::PerUnit(1500), None),
    (Kind::Offer, "Offer", Size::PerUnit(900), None),
    (Kind::Retailer, "Retailer", Size::PerUnit(12), None),
    (Kind::Purchase, "Purchase", Size::PerUnit(1500), None),
    (Kind::Website, "Website", Size::PerUnit(50), None),
    (Kind::City, "City", Size::Fixed(240), None),
    (Kind::Country, "Country", Size::Fixed(25), None),
    (Kind::SubGenre, "SubGenre", Size::Fixed(145), None),
    (Kind::Topic, "Topic", Size::Fixed(250), None),
    (Kind::Language, "Language", Size::Fixed(25), None),
    (Kind::AgeGroup, "AgeGroup", Size::Fixed(9), None),
    (Kind::Gender, "Gender", Size::Fixed(2), None),
];

/// What a predicate's objects are.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Range {
    /// Entities of a kind, the popular ones (low numbers) far more often: the chance of one
    /// among the first `x·n` of `n` is `sqrt(x)`.
    Entity(Kind),
    /// A few words, with a language tag (`"..."@en`) or without.
    Text { tagged: bool },
    /// A plain string naming the subject (`"givenName12"`).
    Name,
    /// `"k"^^xsd:integer`, `k` in `0..max`.
    Integer(u32),
    /// `"d.dd"^^xsd:decimal`, below 1000.
    Decimal,
    /// `"yyyy-mm-dd"^^xsd:date` in 2000 to 2015.
    Date,
}

/// One predicate as used by one kind of subject.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Property {
    pub(crate) predicate: &'static str,
    /// The entities that carry it: its subjects or, when `owned`, its objects.
    pub(crate) domain: Kind,
    pub(crate) range: Range,
    /// Percent of the domain's entities that carry it (its entity 0 always does).
    pub(crate) percent: u32,
    /// Objects an entity has: 1, or from 1 to this many, `k` with chance in proportion to
    /// `1/k` (at most a quarter of the range's entities).
    pub(crate) most: u32,
    /// Written the other way round: each entity of `domain` is the object of one triple
    /// whose subject is drawn from the range (a purchase has one buyer).
    pub(crate) owned: bool,
}

const fn one(predicate: &'static str, domain: Kind, range: Range, percent: u32) -> Property {
    Property {
        predicate,
        domain,
        range,
        percent,
        most: 1,
        owned: false,
    }
}

const fn many(
    predicate: &'static str,
    domain: Kind,
    range: Range,
    percent: u32,
    most: u32,
) -> Property {
    Property {
        most,
        ..one(predicate, domain, range, percent)
    }
}

const fn owned(predicate: &'static str, domain: Kind, owner: Kind) -> Property {
    Property {
        owned: true,
        ..one(predicate, domain, Range::Entity(owner), 100)
    }
}

use Kind::*;
use Range::{Date, Decimal, Entity, Integer, Name, Text};

const TEXT: Range = Text { tagged: true };
const PLAIN: Range = Text { tagged: false };

/// Every predicate but `rdf:type`, by kind of subject.
pub(crate) const PROPERTIES: &[Property] = &[
    // Users.
    one(wsdbm!("userId"), User, Integer(100_000_000), 100),
    one(foaf!("givenName"), User, Name, 80),
    one(foaf!("familyName"), User, Name, 80),
    one(foaf!("age"), User, Entity(AgeGroup), 50),
    one(wsdbm!("gender"), User, Entity(Gender), 60),
    one(sorg!("email"), User, Name, 90),
    one(sorg!("telephone"), User, Name, 20),
    one(sorg!("jobTitle"), User, PLAIN, 20),
    one(sorg!("birthDate"), User, Date, 20),
    one(sorg!("nationality"), User, Entity(Country), 50),
    one("http://purl.org/dc/terms/Location", User, Entity(City), 40),
    one(foaf!("homepage"), User, Entity(Website), 5),
    many(wsdbm!("friendOf"), User, Entity(User), 40, 200),
    many(wsdbm!("follows"), User, Entity(User), 70, 50),
    many(wsdbm!("likes"), User, Entity(Product), 25, 20),
    many(wsdbm!("subscribes"), User, Entity(Website), 20, 5),
    // Products.
    one(sorg!("caption"), Product, TEXT, 40),
    one(sorg!("description"), Product, TEXT, 60),
    one(sorg!("text"), Product, TEXT, 30),
    many(sorg!("keywords"), Product, PLAIN, 40, 4),
    one(og!("title"), Product, TEXT, 80),
    many(og!("tag"), Product, Entity(Topic), 60, 8),
    many(wsdbm!("hasGenre"), Product, Entity(SubGenre), 90, 3),
    one(sorg!("contentRating"), Product, Integer(10), 30),
    one(sorg!("contentSize"), Product, Integer(5000), 40),
    one(sorg!("language"), Product, Entity(Language), 40),
    one(foaf!("homepage"), Product, Entity(Website), 30),
    one(sorg!("publisher"), Product, Name, 20),
    one(sorg!("author"), Product, Entity(User), 10),
    one(sorg!("editor"), Product, Entity(User), 5),
    one(sorg!("director"), Product, Entity(User), 5),
    many(sorg!("actor"), Product, Entity(User), 10, 10),
    one(sorg!("producer"), Product, Entity(User), 5),
    one(sorg!("trailer"), Product, Name, 20),
    one(sorg!("duration"), Product, Integer(300), 10),
    one(sorg!("datePublished"), Product, Date, 20),
    one(sorg!("releaseDate"), Product, Date, 10),
    one(sorg!("expires"), Product, Date, 5),
    one(sorg!("isbn"), Product, Name, 5),
    one(sorg!("bookEdition"), Product, Integer(10), 5),
    one(sorg!("numberOfPages"), Product, Integer(1000), 5),
    one(sorg!("wordCount"), Product, Integer(200_000), 5),
    one(sorg!("printColumn"), Product, Integer(10), 2),
    one(sorg!("printEdition"), Product, Integer(10), 2),
    one(sorg!("printPage"), Product, Integer(100), 2),
    one(sorg!("printSection"), Product, Name, 2),
    one(sorg!("recordLabel"), Product, Name, 3),
    one(sorg!("award"), Product, PLAIN, 2),
    one(sorg!("aggregateRating"), Product, Integer(10), 10),
    one(mo!("artist"), Product, Entity(User), 30),
    one(mo!("conductor"), Product, Entity(User), 20),
    many(mo!("performer"), Product, Entity(User), 5, 5),
    one(mo!("producer"), Product, Name, 3),
    one(mo!("movement"), Product, Name, 2),
    one(mo!("opus"), Product, Name, 2),
    one(mo!("performed_in"), Product, Entity(City), 3),
    one(mo!("record_number"), Product, Integer(100), 3),
    one(mo!("release"), Product, Name, 3),
    // Reviews, each of one product.
    owned(rev!("hasReview"), Review, Product),
    one(rev!("reviewer"), Review, Entity(User), 100),
    one(rev!("rating"), Review, Integer(10), 90),
    one(rev!("title"), Review, TEXT, 60),
    one(rev!("text"), Review, TEXT, 50),
    one(rev!("totalVotes"), Review, Integer(100), 30),
    // Offers, each of one retailer.
    owned(gr!("offers"), Offer, Retailer),
    one(gr!("includes"), Offer, Entity(Product), 100),
    one(gr!("price"), Offer, Decimal, 100),
    one(gr!("serialNumber"), Offer, Integer(1_000_000), 80),
    one(gr!("validFrom"), Offer, Date, 50),
    one(gr!("validThrough"), Offer, Date, 50),
    one(sorg!("eligibleQuantity"), Offer, Integer(100), 40),
    many(sorg!("eligibleRegion"), Offer, Entity(Country), 50, 6),
    one(sorg!("priceValidUntil"), Offer, Date, 30),
    // Retailers.
    one(sorg!("legalName"), Retailer, Name, 100),
    one(sorg!("openingHours"), Retailer, PLAIN, 60),
    one(sorg!("paymentAccepted"), Retailer, PLAIN, 60),
    one(sorg!("contactPoint"), Retailer, Name, 50),
    one(sorg!("faxNumber"), Retailer, Name, 30),
    one(sorg!("telephone"), Retailer, Name, 80),
    one(sorg!("email"), Retailer, Name, 80),
    many(sorg!("employee"), Retailer, Entity(User), 80, 40),
    // Purchases, each of one user.
    owned(wsdbm!("makesPurchase"), Purchase, User),
    one(wsdbm!("purchaseFor"), Purchase, Entity(Product), 100),
    one(wsdbm!("purchaseDate"), Purchase, Date, 90),
    // Websites.
    one(sorg!("url"), Website, Name, 100),
    one(wsdbm!("hits"), Website, Integer(100_000), 80),
    one(sorg!("language"), Website, Entity(Language), 70),
    // Places, genres, topics and the rest.
    one(
        "http://www.geonames.org/ontology#parentCountry",
        City,
        Entity(Country),
        100,
    ),
    one(RDFS_LABEL, City, Name, 100),
    one(RDFS_LABEL, Country, Name, 100),
    many(og!("tag"), SubGenre, Entity(Topic), 80, 3),
    one(RDFS_LABEL, SubGenre, Name, 100),
    one(RDFS_LABEL, Topic, Name, 100),
    one(RDFS_LABEL, Language, Name, 100),
    one(RDFS_LABEL, AgeGroup, Name, 100),
    one(RDFS_LABEL, Gender, Name, 100),
];

/// Words of the generated texts.
pub(crate) const WORDS: [&str; 32] = [
    "alpha", "bright", "calm", "dark", "early", "fast", "green", "high", "iron", "jolly", "kind",
    "light", "modern", "new", "old", "proud", "quiet", "red", "small", "tall", "urban", "vivid",
    "warm", "young", "zesty", "blue", "cold", "deep", "fair", "grand", "hollow", "open",
];

/// Language tags of tagged texts, the first most often.
pub(crate) const LANGUAGES: [&str; 8] = ["en", "de", "fr", "es", "it", "ja", "zh", "ru"];
