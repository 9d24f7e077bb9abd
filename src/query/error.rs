//! The one error type of a request: a status and a message for the caller.

/// An answer the API gives as an error: a status and a message for the caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    pub status: u16,
    pub message: String,
}

impl ApiError {
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 400,
            message: message.into(),
        }
    }

    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 404,
            message: message.into(),
        }
    }

    /// Every thread for answers that cost work is busy and the queue is full.
    pub fn busy() -> ApiError {
        ApiError {
            status: 503,
            message: "the server is busy with other questions: retry in a second".into(),
        }
    }
}
