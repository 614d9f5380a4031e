// test/sanitized.h — kSanitized: true in the AddressSanitizer build, where the largest equivalence and fuzz cases run
// a smaller instance (the Release suite runs them whole) so that scripts/test stays within CI's time.
#pragma once

namespace ringsched::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace ringsched::test
