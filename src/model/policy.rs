//! What each list does beyond its fields, said once: which filters it takes,
//! which of its fields no filter names, what its page shows beside the rows and
//! what its map's points carry. Every layer reads a model's [`Policy`]; none
//! asks which model it is.

use super::schema::Model;

/// Which filters a list takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filters {
    /// Its own named filters (the specimen list's `family`, `year`,
    /// `collector`, ...); any other parameter is ignored rather than refused,
    /// as the service did: the label-printing form sends many.
    Named,
    /// An exact filter per field of its plain shape; anything else is refused.
    ByField,
    /// Its fields' names are accepted and filter nothing, as the service's
    /// image and page lists did.
    Ignored,
}

/// What a list's page shows beside its rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Nothing,
    /// The label-printing form, with the counts of `facets` (the `facet_size`
    /// commonest values of each) unless the request names its own facets, and
    /// the records' seasons as charts.
    LabelForm {
        facets: &'static str,
        facet_size: usize,
    },
}

/// What a list's records are in Darwin Core.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DarwinCore {
    /// Nothing the archive writes.
    Nothing,
    /// Occurrences: the archive's core rows, a CSV's `columns=dwc`, the
    /// checklists' specimens.
    Occurrences,
}

/// What a list does beyond its fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    pub filters: Filters,
    /// Fields computed from others, which no filter names: row groups would
    /// cost 4 bytes a row each for nothing (a facet on one counts from its
    /// sort order).
    pub ungrouped: &'static [&'static str],
    pub side: Side,
    /// The fields a map's points carry (the `fields` of its GeoJSON request).
    pub map_fields: &'static str,
    /// The fields a page's table shows when `fields` names none: those a person
    /// scans (`None`: every field); the rest are a click away.
    pub page_columns: Option<&'static str>,
    pub darwin_core: DarwinCore,
    /// Whether its records carry quality flags (`issue=`, `facet=issue`).
    pub quality: bool,
}

impl Model {
    /// The list's policy.
    pub fn policy(self) -> Policy {
        let plain = Policy {
            filters: Filters::ByField,
            ungrouped: &[],
            side: Side::Nothing,
            map_fields: "_,id",
            page_columns: None,
            darwin_core: DarwinCore::Nothing,
            quality: false,
        };
        match self {
            Model::SpecimenRecord => Policy {
                filters: Filters::Named,
                ungrouped: &[
                    "identified",
                    "collected_date",
                    "num_date",
                    "collectors",
                    "temp_F",
                    "temp_C",
                ],
                side: Side::LabelForm {
                    facets: "family,year,country,collector,sex,stage",
                    facet_size: 10,
                },
                map_fields: "_,id,usi",
                page_columns: Some("id,usi,taxon,state,locality,full_date,collectors,sex,stage"),
                darwin_core: DarwinCore::Occurrences,
                quality: true,
            },
            Model::SpecimenRecordImage
            | Model::InsectImage
            | Model::PlantImage
            | Model::HabitatImage
            | Model::SpeciesPage => Policy {
                filters: Filters::Ignored,
                ..plain
            },
            _ => plain,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_policy_names_only_its_models_fields() {
        for model in Model::ALL {
            let policy = model.policy();
            for name in policy.ungrouped {
                assert!(model.field_index(name).is_some(), "{model:?} {name}");
            }
            let page = policy.page_columns.unwrap_or_default().split(',');
            for name in policy
                .map_fields
                .split(',')
                .chain(page)
                .filter(|n| !matches!(*n, "_" | ""))
            {
                assert!(model.field_index(name).is_some(), "{model:?} {name}");
            }
            if let Side::LabelForm { facets, .. } = policy.side {
                for name in facets.split(',') {
                    assert!(model.field_index(name).is_some(), "{model:?} {name}");
                }
            }
        }
        assert_eq!(Model::SpecimenRecord.policy().filters, Filters::Named);
        assert_eq!(Model::Order.policy().filters, Filters::ByField);
        assert_eq!(Model::SpeciesPage.policy().filters, Filters::Ignored);
    }
}
