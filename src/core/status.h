// Status: the outcome of one store operation, cheap enough for the hot path.
//
// A Status is one byte (a code); it never allocates. The codes and their
// names match YCSB's `site.ycsb.Status` so `Return=NOT_FOUND` lines read the
// same. Errors that need a message (setup, parsing) are exceptions at the
// edges instead: see core/error.h.
#pragma once

#include <cstdint>
#include <string_view>

namespace storebench {

class Status {
 public:
  enum Code : std::uint8_t {
    kOk = 0,
    kError,
    kNotFound,
    kNotImplemented,
    kUnexpectedState,  // e.g. a data-integrity mismatch
    kBadRequest,
    kForbidden,
    kServiceUnavailable,
    kBatchedOk,
    kAborted,  // a transaction that the store aborted
    kNumCodes
  };

  constexpr Status() = default;
  constexpr explicit Status(Code c) : code_(c) {}

  static constexpr Status Ok() { return Status(kOk); }
  static constexpr Status Error() { return Status(kError); }
  static constexpr Status NotFound() { return Status(kNotFound); }
  static constexpr Status NotImplemented() { return Status(kNotImplemented); }
  static constexpr Status UnexpectedState() { return Status(kUnexpectedState); }

  constexpr bool ok() const { return code_ == kOk || code_ == kBatchedOk; }
  constexpr bool IsNotFound() const { return code_ == kNotFound; }
  constexpr Code code() const { return code_; }

  // YCSB's name for the code: "OK", "NOT_FOUND", ...
  static constexpr std::string_view Name(Code c) {
    switch (c) {
      case kOk: return "OK";
      case kError: return "ERROR";
      case kNotFound: return "NOT_FOUND";
      case kNotImplemented: return "NOT_IMPLEMENTED";
      case kUnexpectedState: return "UNEXPECTED_STATE";
      case kBadRequest: return "BAD_REQUEST";
      case kForbidden: return "FORBIDDEN";
      case kServiceUnavailable: return "SERVICE_UNAVAILABLE";
      case kBatchedOk: return "BATCHED_OK";
      case kAborted: return "ABORTED";
      case kNumCodes: break;
    }
    return "UNKNOWN";
  }
  constexpr std::string_view name() const { return Name(code_); }

  constexpr bool operator==(const Status&) const = default;

 private:
  Code code_ = kOk;
};

}  // namespace storebench
