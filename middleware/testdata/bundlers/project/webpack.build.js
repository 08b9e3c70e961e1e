// webpack 5 through its Node API (webpack-cli 7 needs Node 22.15): the
// content-hash names its guide recommends, [name].[contenthash].js and
// [name].[contenthash][ext], with the default hash (md4, 20 hex digits),
// and source maps.
import path from 'node:path';
import webpack from 'webpack';

const dir = process.cwd();
webpack(
  {
    mode: 'production',
    context: dir,
    devtool: 'source-map',
    entry: { main: './src/main.js' },
    output: {
      path: path.join(dir, 'dist'),
      publicPath: '/',
      filename: '[name].[contenthash].js',
      chunkFilename: '[name].[contenthash].js',
      cssFilename: '[name].[contenthash].css',
      cssChunkFilename: '[name].[contenthash].css',
      assetModuleFilename: '[name].[contenthash][ext]',
      clean: true,
    },
    experiments: { css: true },
    module: {
      rules: [{ test: /\.(svg|jpg|woff2)$/, type: 'asset/resource' }],
    },
  },
  (err, stats) => {
    if (err || stats.hasErrors()) {
      console.error(err || stats.toString('errors-only'));
      process.exit(1);
    }
  },
);
