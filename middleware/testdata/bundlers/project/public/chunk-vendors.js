public/chunk-vendors.js: copied by the bundler as it is, unhashed
