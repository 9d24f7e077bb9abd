//! Wagtail's own image endpoint (`/api/v2/images/`), through which the service
//! lists every image since 0.16: the fields its `ImagesAPIViewSet` declares,
//! which of them an item shows by default, and which name a database column
//! (the ones a parameter may filter on).

/// One field of Wagtail's image items. Body fields are the item's own keys;
/// meta fields go in its `meta` object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageField {
    Id,
    Title,
    Width,
    Height,
    Type,
    DetailUrl,
    Tags,
    DownloadUrl,
}

/// What `meta.type` says of every image: the image model's label.
pub const IMAGE_TYPE: &str = "images.CustomImage";

impl ImageField {
    /// Every field, body fields then meta fields: the order an item's keys follow.
    pub const ALL: [ImageField; 8] = [
        ImageField::Id,
        ImageField::Title,
        ImageField::Width,
        ImageField::Height,
        ImageField::Type,
        ImageField::DetailUrl,
        ImageField::Tags,
        ImageField::DownloadUrl,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ImageField::Id => "id",
            ImageField::Title => "title",
            ImageField::Width => "width",
            ImageField::Height => "height",
            ImageField::Type => "type",
            ImageField::DetailUrl => "detail_url",
            ImageField::Tags => "tags",
            ImageField::DownloadUrl => "download_url",
        }
    }

    pub fn from_name(name: &str) -> Option<ImageField> {
        ImageField::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Whether the field goes in the item's `meta` object.
    pub fn is_meta(self) -> bool {
        matches!(
            self,
            ImageField::Type | ImageField::DetailUrl | ImageField::Tags | ImageField::DownloadUrl
        )
    }

    /// Whether the field is a column of the image (or its tags): the fields a
    /// `?name=value` parameter filters on.
    pub fn filters(self) -> bool {
        matches!(
            self,
            ImageField::Id
                | ImageField::Title
                | ImageField::Width
                | ImageField::Height
                | ImageField::Tags
        )
    }

    /// Whether `order` can sort by the field: the columns of one value each.
    pub fn sorts(self) -> bool {
        self.filters() && self != ImageField::Tags
    }

    fn bit(self) -> u8 {
        1 << ImageField::ALL.iter().position(|f| *f == self).unwrap_or(0)
    }
}

/// A set of fields an item shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ImageFields(u8);

impl ImageFields {
    /// What a listing shows by default.
    pub const LISTING: ImageFields = ImageFields(0b1111_0011);
    /// Every field: what a single image shows by default.
    pub const ALL: ImageFields = ImageFields(0b1111_1111);
    pub const NONE: ImageFields = ImageFields(0);

    pub fn contains(self, field: ImageField) -> bool {
        self.0 & field.bit() != 0
    }

    pub fn insert(&mut self, field: ImageField) {
        self.0 |= field.bit();
    }

    pub fn remove(&mut self, field: ImageField) {
        self.0 &= !field.bit();
    }

    /// The fields shown, in item order.
    pub fn iter(self) -> impl Iterator<Item = ImageField> {
        ImageField::ALL
            .into_iter()
            .filter(move |f| self.contains(*f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listing_shows_wagtails_defaults() {
        let names: Vec<&str> = ImageFields::LISTING.iter().map(ImageField::name).collect();
        assert_eq!(
            names,
            ["id", "title", "type", "detail_url", "tags", "download_url"]
        );
        assert_eq!(ImageFields::ALL.iter().count(), 8);
        for f in ImageField::ALL {
            assert_eq!(ImageField::from_name(f.name()), Some(f));
        }
    }
}
