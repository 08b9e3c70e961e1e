public/bundle-20240101.js: copied by the bundler as it is, unhashed
